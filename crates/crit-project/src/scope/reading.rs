//! [`compute`](super::compute) on a thread of its own: a front end starts reading the change
//! as soon as it knows the scope, and sets the review up while git runs.
//! A range's git processes start on the caller's thread, before it starts
//! anything else: a process started while the review sets up waits for a
//! core, and these are on the review's critical path.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use super::compute::{compute_scope, start_early};
use super::{Change, Scope, ScopeError, ScopeOptions};

/// A change being read ([`Reading::start`]). Clones share the one read;
/// [`Reading::take`] hands it to the first review of that same change.
#[derive(Clone)]
pub struct Reading(Arc<Mutex<Option<Started>>>);

struct Started {
    root: PathBuf,
    scope: Scope,
    opts: ScopeOptions,
    thread: JoinHandle<Result<Change, ScopeError>>,
}

/// The read taken ([`Reading::take`]): its change, when it ends.
pub struct Taken(JoinHandle<Result<Change, ScopeError>>);

impl Reading {
    /// Starts [`compute`]`(root, scope, opts)` and returns once its first
    /// git processes run.
    ///
    /// [`compute`]: super::compute
    pub fn start(root: &Path, scope: &Scope, opts: &ScopeOptions) -> Reading {
        let (r, s, o) = (root.to_path_buf(), scope.clone(), opts.clone());
        let started = start_early(root, scope, opts);
        let thread = std::thread::spawn(move || compute_scope(&r, &s, &o, &[], started));
        Reading(Arc::new(Mutex::new(Some(Started {
            root: root.to_path_buf(),
            scope: scope.clone(),
            opts: opts.clone(),
            thread,
        }))))
    }

    /// The read, if it is of exactly what `compute(root, scope, opts)`
    /// would read and nobody took it before; `None` leaves the caller to
    /// read it itself.
    pub fn take(&self, root: &Path, scope: &Scope, opts: &ScopeOptions) -> Option<Taken> {
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let same = slot
            .as_ref()
            .is_some_and(|s| s.root == root && s.scope == *scope && s.opts == *opts);
        match same {
            true => slot.take().map(|s| Taken(s.thread)),
            false => None,
        }
    }
}

impl std::fmt::Debug for Reading {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        f.debug_struct("Reading")
            .field("scope", &slot.as_ref().map(|s| &s.scope))
            .finish_non_exhaustive()
    }
}

impl Taken {
    /// Waits for the read: the change, or why there is none.
    pub fn finish(self) -> Result<Change, ScopeError> {
        self.0.join().unwrap_or_else(|_| {
            Err(ScopeError::GitUnavailable {
                reason: "the thread reading the change stopped".into(),
            })
        })
    }
}
