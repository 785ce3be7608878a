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
    let mut groups: Vec<Vec<&Piece>> = Vec::new();
    for p in order {
        match groups.last_mut() {
            Some(g) if relation(&g[0].path) == relation(&p.path) => g.push(p),
            _ => groups.push(vec![p]),
        }
    }
    let mut parts: Vec<Vec<usize>> = Vec::new();
    let mut size = 0;
    for g in groups {
        let total: usize = g.iter().map(|p| p.bytes).sum();
        if !parts.is_empty() && size + total > budget && total <= budget {
            parts.push(Vec::new());
            size = 0;
        }
        for p in g {
            match parts.last_mut() {
                Some(part) if part.is_empty() || size + p.bytes <= budget => {
                    part.push(p.id);
                    size += p.bytes;
                }
                _ => {
                    parts.push(vec![p.id]);
                    size = p.bytes;
                }
            }
        }
    }
    parts
}

/// What orders a path among its relatives: its directory without test
/// directories, then its name without test markers or extension.
fn relation(path: &str) -> (String, String) {
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
