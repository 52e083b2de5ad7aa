-- Locksmith lock table for H2. ${table} and ${readers} are replaced by the configured, validated names.
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
