//! Everything crit does to the machine, one way each: the environment as
//! data ([`env`]), the user's directories ([`dirs`]), capped reads ([`read`])
//! and writes that never follow a symlink planted inside a project
//! ([`write`]), child processes in their own process groups ([`process`]),
//! the hardened git runner ([`git`]), and sealing and hashing on `ring` with
//! the per-user key ([`seal`]).
//!
//! This crate depends on no other crit crate. Only front ends read the real
//! process environment ([`env::Env::from_process`]); everything below them is
//! handed an [`env::Env`].

// A library never writes to the terminal: what it has to say goes to its caller.
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![warn(unreachable_pub)]

pub mod dirs;
pub mod env;
pub mod git;
pub mod process;
pub mod read;
pub mod seal;
pub mod write;

pub use env::Env;
