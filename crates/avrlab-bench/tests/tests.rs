//! Integration tests of avrlab-bench against real tools.

mod git_apply;
