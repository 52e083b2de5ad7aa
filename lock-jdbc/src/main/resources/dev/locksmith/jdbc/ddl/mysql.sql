-- Locksmith lock tables for MySQL 8; names compare byte for byte, trailing spaces included
-- (utf8mb4_0900_bin). ${table}, ${readers} and ${sequence} are replaced by the configured, validated
-- names.
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
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_bin;
CREATE TABLE IF NOT EXISTS ${readers} (
  name VARCHAR(320) NOT NULL,
  owner VARCHAR(255) NOT NULL,
  holds INT NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (name, owner)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_bin;
-- The fencing tokens. MySQL has no sequences: one counter row, incremented by
-- UPDATE ... SET last_token = LAST_INSERT_ID(last_token + 1) in a statement of its own after a hold
-- is taken (the row lock orders the draws; the driver returns the new value with the update count).
-- ${start} must be above every version already in ${table} (1 + MAX(version), or 1 for a new table).
CREATE TABLE IF NOT EXISTS ${sequence} (
  id TINYINT NOT NULL,
  last_token BIGINT NOT NULL,
  PRIMARY KEY (id)
) ENGINE=InnoDB;
INSERT IGNORE INTO ${sequence} (id, last_token) VALUES (1, ${start} - 1);
