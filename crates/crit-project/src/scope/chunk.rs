//! Packing a change that is too big for one request into parts that each fit
//! the model's context budget, related files together: files are ordered by
//! directory, then by name with test markers stripped (`pool.rs`,
//! `pool_test.rs` and `tests/pool.rs` sit side by side), and filled into
//! parts in that order, a part closing when the next file would overflow it.
//! A file bigger than a part is split at hunk boundaries. Unlike `--shard`
//! (balanced parts for a CI matrix, chosen by count), a part here is chosen
//! by size, and every part is reviewed by the same run.

/// One unit to place: a file, or a run of a big file's hunks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// The caller's id for it.
    pub id: usize,
    /// Path of its file, `/`-separated: decides what sits next to what.
    pub path: String,
    pub bytes: usize,
}

/// The ids of `pieces` grouped into parts of at most `budget` bytes (a piece
/// larger than the budget gets a part of its own), in related order.
pub fn pack(pieces: &[Piece], budget: usize) -> Vec<Vec<usize>> {
    let mut order: Vec<&Piece> = pieces.iter().collect();
    order.sort_by(|a, b| {
        relation(&a.path)
            .cmp(&relation(&b.path))
            .then_with(|| a.path.cmp(&b.path))
            .then_with(|| a.id.cmp(&b.id))
    });
    // Relatives (same directory and name) move as a group when it fits a
    // part; otherwise piece by piece.
    let mut packer = Packer::new(budget);
    let mut group: Vec<(usize, usize)> = Vec::new();
    let mut of: Option<(String, String)> = None;
    for p in order {
        let rel = relation(&p.path);
        if of.as_ref().is_some_and(|r| *r != rel) {
            packer.group(std::mem::take(&mut group));
        }
        of = Some(rel);
        group.push((p.id, p.bytes));
    }
    packer.group(group);
    packer.finish();
    std::iter::from_fn(|| packer.next_part()).collect()
}

/// [`pack`] one group of relatives at a time, in the order [`relation`]
/// sorts them: each part is handed out as soon as the next one starts, so
/// a caller can use the first part before it has seen the last file.
#[derive(Debug)]
pub struct Packer {
    budget: usize,
    /// The part being filled, and its size.
    open: Option<(Vec<usize>, usize)>,
    closed: std::collections::VecDeque<Vec<usize>>,
}

impl Packer {
    pub fn new(budget: usize) -> Self {
        Packer {
            budget,
            open: None,
            closed: Default::default(),
        }
    }

    /// Places a group of relatives: `(id, bytes)` pieces, in order.
    pub fn group(&mut self, pieces: Vec<(usize, usize)>) {
        if pieces.is_empty() {
            return;
        }
        let total: usize = pieces.iter().map(|p| p.1).sum();
        if self
            .open
            .as_ref()
            .is_some_and(|(_, size)| size + total > self.budget && total <= self.budget)
        {
            self.close();
        }
        for (id, bytes) in pieces {
            match &mut self.open {
                Some((part, size)) if part.is_empty() || *size + bytes <= self.budget => {
                    part.push(id);
                    *size += bytes;
                }
                _ => {
                    self.close();
                    self.open = Some((vec![id], bytes));
                }
            }
        }
    }

    fn close(&mut self) {
        if let Some((part, _)) = self.open.take() {
            self.closed.push_back(part);
        }
    }

    /// No more groups: the open part is complete.
    pub fn finish(&mut self) {
        self.close();
    }

    /// Whether a part is being filled (one more part will follow those closed).
    pub fn is_filling(&self) -> bool {
        self.open.is_some()
    }

    /// The next complete part, in order.
    pub fn next_part(&mut self) -> Option<Vec<usize>> {
        self.closed.pop_front()
    }
}

/// What orders a path among its relatives: its directory without test
/// directories, then its name without test markers or extension.
pub fn relation(path: &str) -> (String, String) {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    let dir: Vec<&str> = dir
        .split('/')
        .filter(|c| !matches!(*c, "test" | "tests" | "__tests__" | "spec" | "specs" | ""))
        .collect();
    let stem = name.split('.').next().unwrap_or(name).to_ascii_lowercase();
    let stem = stem
        .strip_prefix("test_")
        .or_else(|| stem.strip_suffix("_test"))
        .or_else(|| stem.strip_suffix("_spec"))
        .or_else(|| stem.strip_suffix("-test"))
        .or_else(|| stem.strip_suffix("test").filter(|s| !s.is_empty()))
        .unwrap_or(&stem)
        .to_string();
    (dir.join("/"), stem)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(id: usize, path: &str, bytes: usize) -> Piece {
        Piece {
            id,
            path: path.into(),
            bytes,
        }
    }

    #[test]
    fn tests_sit_next_to_their_code_and_parts_respect_the_budget() {
        let pieces = [
            piece(0, "src/zeta.rs", 40),
            piece(1, "src/auth/login.ts", 40),
            piece(2, "docs/guide.md", 40),
            piece(3, "src/auth/__tests__/login.test.ts", 40),
            piece(4, "pkg/pool_test.go", 40),
            piece(5, "pkg/pool.go", 40),
            piece(6, "huge.sql", 500),
        ];
        let parts = pack(&pieces, 100);
        for part in &parts {
            let size: usize = part.iter().map(|i| pieces[*i].bytes).sum();
            assert!(size <= 100 || part.len() == 1, "{part:?}");
        }
        let together = |a: usize, b: usize| parts.iter().any(|p| p.contains(&a) && p.contains(&b));
        assert!(together(1, 3), "{parts:?}");
        assert!(together(4, 5), "{parts:?}");
        let all: usize = parts.iter().map(Vec::len).sum();
        assert_eq!(all, pieces.len());
        assert_eq!(pack(&[], 10), Vec::<Vec<usize>>::new());
    }

    #[test]
    fn relations() {
        assert_eq!(relation("pkg/pool_test.go"), ("pkg".into(), "pool".into()));
        assert_eq!(
            relation("src/auth/__tests__/login.test.ts"),
            ("src/auth".into(), "login".into())
        );
        assert_eq!(relation("tests/test_api.py"), ("".into(), "api".into()));
        assert_eq!(relation("FooTest.java"), ("".into(), "foo".into()));
        assert_eq!(relation("test.rs"), ("".into(), "test".into()));
    }
}
