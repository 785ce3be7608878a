//! The review kinds crit runs. So far: review templates — their schema, loading
//! and validation, the registry of built-in, user and project templates, and
//! prompt rendering.

pub mod template;
