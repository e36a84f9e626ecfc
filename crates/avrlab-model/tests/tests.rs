//! Integration tests of avrlab-model: one binary, one module per concern.

mod command_model;
mod fake_server;
mod local_model;
mod offline_backends;
mod openai_protocol;
