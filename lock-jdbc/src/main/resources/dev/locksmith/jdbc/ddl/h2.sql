-- Locksmith lock tables for H2. ${table}, ${readers} and ${sequence} are replaced by the configured,
-- validated names.
-- expires_at and waiting_until are milliseconds since the epoch on the database clock.
-- kind is VARCHAR, not CHAR as elsewhere: H2 converts the VARCHAR parameter to CHAR on every
-- comparison, a twentieth of an acquire and release.
CREATE TABLE IF NOT EXISTS ${table} (
  name VARCHAR(320) NOT NULL,
  kind VARCHAR(1) NOT NULL,
  owner VARCHAR(255),
  holds INT NOT NULL,
  version BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  waiting_owner VARCHAR(255),
  waiting_until BIGINT NOT NULL,
  PRIMARY KEY (name, kind)
);
CREATE TABLE IF NOT EXISTS ${readers} (
  name VARCHAR(320) NOT NULL,
  owner VARCHAR(255) NOT NULL,
  holds INT NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (name, owner)
);
-- The fencing tokens: each new holder of a lock draws one, so rows can be deleted when a lock is
-- released. H2 keeps one sequence object for all sessions, so a token drawn later is always greater.
-- ${start} must be above every version already in ${table} (1 + MAX(version), or 1 for a new table):
-- rows of an earlier Locksmith version carry tokens handed out before. Never drop or restart it.
CREATE SEQUENCE IF NOT EXISTS ${sequence} START WITH ${start};
