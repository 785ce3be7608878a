//! crit-prompt's tests: prompt reviews against crit-testkit's fake model
//! servers on real temporary projects, the editor, the reviewers' prompts
//! (snapshots) and what is rendered for people.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

mod config;
mod context;
mod editor;
mod editor_plugin;
mod pipeline;
mod prompts;
mod render;
mod schema;
