//! A repository's branches and commits as both stand-ins keep them: each
//! commit holds its whole tree (path → text), so a client that writes a
//! branch through the API can be checked by what the branch then holds, and
//! the requests opened from a branch (pull or merge requests) through the
//! API.

use std::collections::BTreeMap;

use base64::Engine;

/// A commit: its parents, its tree and message.
#[derive(Debug, Clone)]
pub(crate) struct Commit {
    pub parents: Vec<String>,
    pub tree: String,
    pub message: String,
}

/// A pull or merge request opened through the API.
#[derive(Debug, Clone)]
pub(crate) struct Opened {
    pub number: u64,
    pub head: String,
    pub base: String,
    pub title: String,
    pub body: String,
    pub open: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct Repo {
    pub default_branch: String,
    pub branches: BTreeMap<String, String>,
    pub commits: BTreeMap<String, Commit>,
    pub trees: BTreeMap<String, BTreeMap<String, String>>,
    pub opened: Vec<Opened>,
    counter: u64,
}

impl Repo {
    /// `main` with one commit of an empty tree.
    pub fn new() -> Self {
        let mut r = Repo {
            default_branch: "main".into(),
            branches: BTreeMap::new(),
            commits: BTreeMap::new(),
            trees: BTreeMap::new(),
            opened: Vec::new(),
            counter: 0,
        };
        let tree = r.tree(BTreeMap::new());
        let first = r.commit(Vec::new(), &tree, "initial");
        r.branches.insert("main".into(), first);
        r
    }

    /// The tree's id: the same files give the same id, as git's do.
    pub fn tree(&mut self, files: BTreeMap<String, String>) -> String {
        let mut text = String::new();
        for (p, c) in &files {
            text.push_str(p);
            text.push('\0');
            text.push_str(c);
            text.push('\0');
        }
        let id = sha_like(&text, 0);
        self.trees.insert(id.clone(), files);
        id
    }

    /// A new commit; every commit gets an id of its own.
    pub fn commit(&mut self, parents: Vec<String>, tree: &str, message: &str) -> String {
        self.counter += 1;
        let id = sha_like(&format!("{tree}\0{parents:?}\0{message}"), self.counter);
        self.commits.insert(
            id.clone(),
            Commit {
                parents,
                tree: tree.to_string(),
                message: message.to_string(),
            },
        );
        id
    }

    /// What a branch holds; `None` when there is no such branch.
    pub fn files_on(&self, branch: &str) -> Option<BTreeMap<String, String>> {
        let head = self.branches.get(branch)?;
        let commit = self.commits.get(head)?;
        self.trees.get(&commit.tree).cloned()
    }

    /// A commit on `branch` holding `files` in place of what it held.
    pub fn seed(&mut self, branch: &str, files: &[(&str, &str)]) -> String {
        let mut tree = self.files_on(branch).unwrap_or_default();
        for (p, c) in files {
            tree.insert((*p).to_string(), (*c).to_string());
        }
        let tree = self.tree(tree);
        let parents: Vec<String> = self.branches.get(branch).cloned().into_iter().collect();
        let id = self.commit(parents, &tree, "seeded");
        self.branches.insert(branch.to_string(), id.clone());
        id
    }

    /// The next request number after `taken`.
    pub fn next_number(&self, taken: impl Iterator<Item = u64>) -> u64 {
        taken
            .chain(self.opened.iter().map(|o| o.number))
            .max()
            .unwrap_or(0)
            + 1
    }
}

/// Forty hex digits from `text` and `salt` (FNV-1a, twice over): stable,
/// not git's, which no client may compute itself anyway.
fn sha_like(text: &str, salt: u64) -> String {
    let mut out = String::new();
    for round in 0..3u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ salt ^ (round << 56);
        for b in text.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        out.push_str(&format!("{h:016x}"));
    }
    out.truncate(40);
    out
}

/// Base64 as the forges' file APIs send it.
pub(crate) fn base64(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(text.as_bytes())
}
