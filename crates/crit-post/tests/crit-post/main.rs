//! Posting end to end against the GitHub and GitLab stand-ins: what crit
//! sent, what the pull or merge request holds afterwards, and what the
//! token touched.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod destination;
mod github;
mod gitlab;
mod measure;
mod secrets;
mod support;
