//! Integration tests of the avrlab command.
