-- sqe's mask functions for PostgreSQL, from the library sqe_mask (make
-- postgres; copy build/postgres/sqe_mask.so into the directory that
-- pg_config --pkglibdir names). Run as a superuser in each database sqe
-- serves; sqe_mask.version() must report the version of the sqe that
-- uses them (udf.ServerMaskVersion).
CREATE SCHEMA IF NOT EXISTS sqe_mask;
CREATE OR REPLACE FUNCTION sqe_mask.mask(text, integer, integer, integer, integer, integer, integer) RETURNS text
	AS 'sqe_mask', 'sqe_mask_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION sqe_mask.mask_int(bigint, integer, integer, integer, integer) RETURNS bigint
	AS 'sqe_mask', 'sqe_mask_int' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION sqe_mask.mask_date(date, integer, integer, integer) RETURNS date
	AS 'sqe_mask', 'sqe_mask_date' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION sqe_mask.version() RETURNS text
	AS 'sqe_mask', 'sqe_mask_version' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
GRANT USAGE ON SCHEMA sqe_mask TO PUBLIC;
