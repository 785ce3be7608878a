//! expert-review's panel rules, as data: who a panel must hold. Claude is
//! always on it (anti-pattern detection); a physics project (`~/Physics/*`)
//! gets a physicist and a mathematician from the document's domain table;
//! AUTO-SELECT's pick is never a panel of one: it is completed from the
//! software table (two reviewers and Claude). Deterministic: the plan's words
//! choose the table row.

use std::path::Path;

use crate::state::Persona;

/// One row of a panel table: the plan domain, the words that point to it,
/// and its two reviewers (name, domain, focus).
struct Row {
    domain: &'static str,
    words: &'static [&'static str],
    first: (&'static str, &'static str, &'static [&'static str]),
    second: (&'static str, &'static str, &'static [&'static str]),
}

/// "For physics projects (~/Physics/*)": physicist, mathematician, Claude.
const PHYSICS: [Row; 6] = [
    Row {
        domain: "Symmetry/algebra",
        words: &[
            "symmetry",
            "symmetries",
            "algebra",
            "lie",
            "group",
            "groups",
            "representation",
            "invariant",
            "clifford",
        ],
        first: (
            "Emmy Noether",
            "physicist: symmetry and invariant theory",
            &["symmetry", "conservation laws"],
        ),
        second: (
            "Hermann Weyl",
            "mathematician: groups and representations",
            &["representation theory", "rigor"],
        ),
    },
    Row {
        domain: "Gauge theory",
        words: &[
            "gauge",
            "yang",
            "mills",
            "bundle",
            "bundles",
            "connection",
            "connections",
        ],
        first: (
            "Chen-Ning Yang",
            "physicist: gauge theory",
            &["gauge invariance", "field equations"],
        ),
        second: (
            "Michael Atiyah",
            "mathematician: geometry of gauge fields",
            &["fibre bundles", "index theory"],
        ),
    },
    Row {
        domain: "Topology/geometry",
        words: &[
            "topology",
            "topological",
            "geometry",
            "geometric",
            "manifold",
            "manifolds",
            "homotopy",
            "cohomology",
        ],
        first: (
            "Edward Witten",
            "physicist: mathematical physics",
            &["topology", "dualities"],
        ),
        second: (
            "Alexander Grothendieck",
            "mathematician: algebraic geometry",
            &["structures", "proof"],
        ),
    },
    Row {
        domain: "Gravity/cosmology",
        words: &[
            "gravity",
            "gravitational",
            "cosmology",
            "cosmological",
            "relativity",
            "spacetime",
            "black",
            "hole",
            "einstein",
        ],
        first: (
            "Stephen Hawking",
            "physicist: gravity and cosmology",
            &["black holes", "cosmology"],
        ),
        second: (
            "Roger Penrose",
            "mathematician: spacetime geometry",
            &["causal structure", "rigor"],
        ),
    },
    Row {
        domain: "Condensed matter",
        words: &[
            "condensed",
            "lattice",
            "superconductor",
            "superconductivity",
            "phonon",
            "phonons",
            "band",
            "spin",
            "ising",
            "crystal",
            "magnetism",
        ],
        first: (
            "Philip Anderson",
            "physicist: condensed matter",
            &["emergence", "symmetry breaking"],
        ),
        second: (
            "Lev Landau",
            "mathematician: theoretical methods",
            &["order parameters", "derivations"],
        ),
    },
    Row {
        domain: "Quantum field theory",
        words: &[
            "qft",
            "quantum",
            "field",
            "renormalization",
            "feynman",
            "propagator",
            "propagators",
            "scattering",
            "path",
            "integral",
        ],
        first: (
            "Steven Weinberg",
            "physicist: quantum field theory",
            &["renormalization", "effective theories"],
        ),
        second: (
            "Arthur Wightman",
            "mathematician: axiomatic field theory",
            &["axioms", "rigor"],
        ),
    },
];

/// "For non-physics projects": two reviewers and Claude; the first row is
/// what a plan about none of them gets.
const SOFTWARE: [Row; 3] = [
    Row {
        domain: "Software/tooling",
        words: &[],
        first: (
            "Donald Knuth",
            "software: algorithms and literate programming",
            &["correctness", "clarity"],
        ),
        second: (
            "Barbara Liskov",
            "software: abstraction and interfaces",
            &["abstractions", "substitutability"],
        ),
    },
    Row {
        domain: "Systems",
        words: &[
            "kernel",
            "scheduler",
            "syscall",
            "syscalls",
            "distributed",
            "filesystem",
            "concurrency",
            "threads",
            "network",
            "latency",
            "operating",
        ],
        first: (
            "Butler Lampson",
            "systems design",
            &["system structure", "failure modes"],
        ),
        second: (
            "Dennis Ritchie",
            "systems programming",
            &["simplicity", "portability"],
        ),
    },
    Row {
        domain: "Databases",
        words: &[
            "database",
            "databases",
            "sql",
            "query",
            "queries",
            "schema",
            "transaction",
            "transactions",
            "postgres",
            "mysql",
            "sqlite",
            "migration",
            "migrations",
            "index",
        ],
        first: (
            "Edgar Codd",
            "databases: the relational model",
            &["data model", "normalization"],
        ),
        second: (
            "Jim Gray",
            "databases: transactions",
            &["transactions", "recovery"],
        ),
    },
];

/// Claude, the panel's anti-pattern reviewer.
pub fn claude() -> Persona {
    Persona {
        name: "Claude".into(),
        domain: "anti-pattern detection".into(),
        focus: vec!["CLAUDE.md violations".into()],
    }
}

/// Whether `p` is the panel's Claude.
pub fn is_claude(p: &Persona) -> bool {
    p.name.trim().to_lowercase().starts_with("claude")
}

/// `panel` with Claude on it ("Claude must always be included"), and
/// whether it had to be added.
pub fn with_claude(mut panel: Vec<Persona>) -> (Vec<Persona>, bool) {
    if panel.iter().any(is_claude) {
        return (panel, false);
    }
    panel.push(claude());
    (panel, true)
}

/// A physics project: the plan or the project lives under `~/Physics`.
pub fn is_physics(home: Option<&Path>, paths: &[&Path]) -> bool {
    let Some(home) = home else {
        return false;
    };
    let physics = home.join("Physics");
    // A relative plan path (`crit plan qft`) is read from where crit runs.
    paths
        .iter()
        .any(|p| std::path::absolute(p).is_ok_and(|p| p.starts_with(&physics)))
}

/// AUTO-SELECT's pick made a panel by the document's rules: on a physics
/// project a physicist and a mathematician (from the table row the plan's
/// words and paths point to) when the pick lacks one; otherwise at least
/// two reviewers besides Claude (from the software table); Claude always.
/// Returns the panel and what was added, for the output.
pub fn complete(picked: Vec<Persona>, context: &str, physics: bool) -> (Vec<Persona>, Vec<String>) {
    let mut panel: Vec<Persona> = picked
        .into_iter()
        .filter(|p| !p.name.trim().is_empty())
        .collect();
    let mut added = Vec::new();
    let mut add = |panel: &mut Vec<Persona>, p: Persona, why: &str| {
        if !panel.iter().any(|q| q.name == p.name) {
            added.push(format!("{} ({why})", p.name));
            panel.push(p);
        }
    };
    if physics {
        let row = best(&PHYSICS, context);
        let (physicist, mathematician) = roles(&panel);
        if !physicist {
            add(
                &mut panel,
                persona(row.first),
                "a physics project's panel has a physicist",
            );
        }
        if !mathematician {
            add(
                &mut panel,
                persona(row.second),
                "a physics project's panel has a mathematician",
            );
        }
    } else {
        let row = best(&SOFTWARE, context);
        for member in [row.first, row.second] {
            if panel.iter().filter(|p| !is_claude(p)).count() >= 2 {
                break;
            }
            add(
                &mut panel,
                persona(member),
                &format!("a panel has two reviewers besides Claude; {}", row.domain),
            );
        }
    }
    // Claude last, as in the document's tables.
    let (mut panel, with) = with_claude(panel);
    panel.sort_by_key(is_claude);
    if with {
        added.push("Claude (always on the panel, for anti-pattern detection)".into());
    }
    (panel, added)
}

/// A panel context.yaml names, by the same rules on a physics project (a
/// physicist and a mathematician, Claude last); elsewhere it stands as
/// written (the document's other tables only suggest). Returns the panel
/// and what was added.
pub fn complete_hand_written(
    panel: Vec<Persona>,
    context: &str,
    physics: bool,
) -> (Vec<Persona>, Vec<String>) {
    match physics {
        true => complete(panel, context, true),
        false => (panel, Vec::new()),
    }
}

/// A panel whose members say they are physicists (by name from the
/// physics table, or by their domain): its plan is a physics plan.
pub fn is_physics_panel(panel: &[Persona]) -> bool {
    roles(panel).0
}

/// The panel when AUTO-SELECT could not pick: expert-review's default
/// panel, or on a physics project the table's physicist and mathematician.
pub fn fallback(default: Vec<Persona>, context: &str, physics: bool) -> Vec<Persona> {
    match physics {
        true => complete(Vec::new(), context, true).0,
        false => default,
    }
}

fn persona((name, domain, focus): (&str, &str, &[&str])) -> Persona {
    Persona {
        name: name.into(),
        domain: domain.into(),
        focus: focus.iter().map(|f| f.to_string()).collect(),
    }
}

/// Whether the panel has a physicist, and a mathematician who is someone
/// else: a table member by name (its surname is enough), else a member whose
/// name or domain says which.
fn roles(panel: &[Persona]) -> (bool, bool) {
    let named = |p: &Persona, pick: fn(&Row) -> &'static str| {
        let name = p.name.to_lowercase();
        PHYSICS.iter().any(|r| {
            let member = pick(r).to_lowercase();
            name.contains(&member)
                || member
                    .rsplit(' ')
                    .next()
                    .is_some_and(|last| name.contains(last))
        })
    };
    let text = |p: &Persona| format!("{} {}", p.name, p.domain).to_lowercase();
    let is_physicist = |p: &Persona| {
        named(p, |r| r.first.0)
            || (!named(p, |r| r.second.0)
                && (text(p).contains("physicist") || text(p).contains("physics")))
    };
    let is_mathematician = |p: &Persona| {
        named(p, |r| r.second.0)
            || (!named(p, |r| r.first.0)
                && (text(p).contains("mathematician") || text(p).contains("mathematics")))
    };
    let physicist = panel.iter().position(is_physicist);
    let mathematician = panel
        .iter()
        .enumerate()
        .any(|(i, p)| Some(i) != physicist && is_mathematician(p));
    (physicist.is_some(), mathematician)
}

/// The row whose words the context uses most; the first on a tie or none.
fn best<'a>(rows: &'a [Row], context: &str) -> &'a Row {
    let words: Vec<String> = context
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let score = |r: &Row| {
        words
            .iter()
            .filter(|w| r.words.contains(&w.as_str()))
            .count()
    };
    let mut pick = &rows[0];
    for r in rows {
        if score(r) > score(pick) {
            pick = r;
        }
    }
    pick
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(p: &[Persona]) -> Vec<&str> {
        p.iter().map(|p| p.name.as_str()).collect()
    }

    fn named(n: &str, domain: &str) -> Persona {
        Persona {
            name: n.into(),
            domain: domain.into(),
            focus: Vec::new(),
        }
    }

    #[test]
    fn a_physics_panel_has_a_physicist_a_mathematician_and_claude() {
        // AUTO-SELECT picked one physicist for a QFT plan under ~/Physics/qft.
        let (panel, added) = complete(
            vec![named("Steven Weinberg", "physicist: quantum field theory")],
            "/home/u/Physics/qft plan: renormalization of the propagator",
            true,
        );
        assert_eq!(
            names(&panel),
            ["Steven Weinberg", "Arthur Wightman", "Claude"]
        );
        assert_eq!(added.len(), 2, "{added:?}");
        // Named in the table, it counts whatever its domain says.
        let (panel, _) = complete(
            vec![
                named("Dr. Emmy Noether", "symmetry"),
                named("Weyl", "groups"),
            ],
            "Lie algebra",
            true,
        );
        assert_eq!(names(&panel), ["Dr. Emmy Noether", "Weyl", "Claude"]);
        // One mathematical physicist fills one role, not both.
        let (panel, _) = complete(
            vec![named("Edward Witten", "mathematical physics")],
            "topology of the moduli space",
            true,
        );
        assert_eq!(
            names(&panel),
            ["Edward Witten", "Alexander Grothendieck", "Claude"]
        );
        assert!(is_physics(
            Some(Path::new("/home/u")),
            &[Path::new("/home/u/Physics/qft/plan.md")]
        ));
        assert!(!is_physics(
            Some(Path::new("/home/u")),
            &[Path::new("/home/u/code/plan.md")]
        ));
    }

    #[test]
    fn auto_select_never_picks_a_panel_of_one() {
        let (panel, _) = complete(
            vec![claude()],
            "Add an index to the users table in postgres",
            false,
        );
        assert_eq!(names(&panel), ["Edgar Codd", "Jim Gray", "Claude"]);
        let (panel, _) = complete(vec![named("Ada", "caching")], "Add a cache", false);
        assert_eq!(names(&panel), ["Ada", "Donald Knuth", "Claude"]);
        let (panel, added) = complete(
            vec![named("Ada", "caching"), named("Bob", "apis"), claude()],
            "Add a cache",
            false,
        );
        assert_eq!(names(&panel), ["Ada", "Bob", "Claude"]);
        assert!(added.is_empty());
    }

    #[test]
    fn claude_joins_a_hand_written_panel() {
        let (panel, added) = with_claude(vec![named("Ada", "caching")]);
        assert!(added);
        assert_eq!(names(&panel), ["Ada", "Claude"]);
        let (_, added) = with_claude(vec![named(
            "Claude (self-review)",
            "anti-pattern detection",
        )]);
        assert!(!added);
    }
}
