//! Integration tests of the build tools' report reading.

mod reports;
