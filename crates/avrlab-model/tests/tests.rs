//! Integration tests of avrlab-model: one binary, one module per concern.

mod fake_server;
mod offline_backends;
mod openai_protocol;
