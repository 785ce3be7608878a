//! The review kinds crit runs. So far: configuration files with provenance, and review templates — their schema, loading
//! and validation, the registry of built-in, user and project templates, and
//! prompt rendering.

pub mod backend;
pub mod config;
mod paths;
pub mod template;
