-- Locksmith lock table for MySQL 8; names compare byte for byte, trailing spaces included (utf8mb4_0900_bin). ${table} and ${readers} are replaced by the configured, validated names.
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
