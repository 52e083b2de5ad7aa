-- Locksmith lock tables for MariaDB 10.5 or later; names compare byte for byte, trailing spaces
-- included (utf8mb4_nopad_bin). ${table}, ${readers} and ${sequence} are replaced by the configured,
-- validated names.
-- expires_at and waiting_until are milliseconds since the epoch on the database clock.
CREATE TABLE IF NOT EXISTS ${table} (
  name VARCHAR(320) NOT NULL,
  kind CHAR(1) NOT NULL,
  owner VARCHAR(255),
  holds INT NOT NULL,
  version BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  waiting_owner VARCHAR(255),
  waiting_until BIGINT NOT NULL,
  PRIMARY KEY (name, kind)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
CREATE TABLE IF NOT EXISTS ${readers} (
  name VARCHAR(320) NOT NULL,
  owner VARCHAR(255) NOT NULL,
  holds INT NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (name, owner)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
-- The fencing tokens: each new holder of a lock draws one, so rows can be deleted when a lock is
-- released. MariaDB's cache is one per sequence, shared by all connections, so a token drawn later is
-- always greater; a restart skips the rest of the cached block, never goes back.
-- ${start} must be above every version already in ${table} (1 + MAX(version), or 1 for a new table):
-- rows of an earlier Locksmith version carry tokens handed out before. Never drop or restart it.
CREATE SEQUENCE IF NOT EXISTS ${sequence} START WITH ${start} CACHE 1000 ENGINE=InnoDB;
