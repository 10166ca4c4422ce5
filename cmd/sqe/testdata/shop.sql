CREATE DATABASE shop;
USE shop;
CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(40), region VARCHAR(8), ssn VARCHAR(11), email VARCHAR(60), salary INT);
CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT, total INT);
