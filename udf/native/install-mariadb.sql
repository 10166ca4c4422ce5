-- sqe's mask functions for MariaDB, from the library sqe_mask.so (make
-- mariadb; copy build/mariadb/sqe_mask.so into the directory that
-- @@plugin_dir names). Run once per server by an administrator; the
-- users sqe connects as need SELECT on mysql.func, which sqe reads to
-- check that the functions are these.
CREATE FUNCTION IF NOT EXISTS sqe_mask_text RETURNS STRING SONAME 'sqe_mask.so';
CREATE FUNCTION IF NOT EXISTS sqe_mask_int RETURNS INTEGER SONAME 'sqe_mask.so';
CREATE FUNCTION IF NOT EXISTS sqe_mask_version RETURNS STRING SONAME 'sqe_mask.so';
