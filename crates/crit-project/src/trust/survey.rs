//! What `crit trust` is about to trust: every exec-capable setting in the
//! project's working tree, found by the loaders themselves (each asks the
//! rules about exactly what it would honour), so the list cannot drift from
//! what is gated.

use std::path::Path;

use super::{Gated, ProjectRules};
use crate::config::Config;
use crate::config::reldo::RunConfig;
use crate::suppress::Suppressions;

/// The project's exec-capable settings, and the files that did not load
/// (their settings cannot be listed, so they are not trusted).
#[derive(Debug, Clone, Default)]
pub struct Survey {
    pub settings: Vec<Gated>,
    pub unreadable: Vec<String>,
}

/// Every exec-capable setting of the working tree of the project at `root`
/// that this crate's loaders know. `more` runs the loaders of files defined
/// above it (review templates) with the same rules and the project's config,
/// returning the errors of files that did not load.
pub fn survey_with(root: &Path, more: &dyn Fn(&ProjectRules, &Config) -> Vec<String>) -> Survey {
    let rules = ProjectRules::trusting(root);
    let mut unreadable = Vec::new();
    match Config::load_project(None, &rules) {
        Ok(c) => unreadable.extend(more(&rules, &c)),
        Err(e) => {
            unreadable.push(e.to_string());
            unreadable.extend(more(&rules, &Config::default()));
        }
    }
    if let Err(e) = crate::config::mala::MalaConfig::load(&rules) {
        unreadable.push(e.to_string());
    }
    if let Err(e) = Suppressions::load_with(&rules) {
        unreadable.push(e.to_string());
    }
    if let Err(e) = crate::learnings::Learnings::load_with(&rules) {
        unreadable.push(e.to_string());
    }
    let prompt_review = crate::config::prompt_review::ConfigPaths {
        plugin_user: None,
        crit_user: None,
    };
    if let Err(e) = crate::config::prompt_review::load(&prompt_review, &rules, &crit_os::Env::new())
    {
        unreadable.push(e.to_string());
    }
    match RunConfig::find_with(&rules) {
        Ok(Some(rel)) => {
            if let Err(e) = RunConfig::survey_with(&root.join(rel), root, &rules) {
                unreadable.push(e.to_string());
            }
        }
        Ok(None) => {}
        Err(e) => unreadable.push(e.to_string()),
    }
    Survey {
        settings: rules.asked().into_iter().map(|a| a.setting).collect(),
        unreadable,
    }
}
