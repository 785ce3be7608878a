//! Every Rust file under a `tests/` directory of the workspace is part of a
//! test binary (declared with `mod` from its parent module, or a target's
//! own path in Cargo.toml): a test file nobody declares compiles nowhere and
//! its tests never run, silently. (jj keeps the same check.)

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Whether `text` (a module file) declares `mod name;`.
fn declares(text: &str, name: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim();
        let l = l
            .strip_prefix("pub(crate) ")
            .or_else(|| l.strip_prefix("pub "))
            .unwrap_or(l);
        l == format!("mod {name};")
    })
}

/// The module file that must declare `file`, and the name it declares it by.
fn parent_of(file: &Path) -> Option<(PathBuf, String)> {
    let dir = file.parent()?;
    let stem = file.file_stem()?.to_str()?.to_string();
    let (dir, name) = match stem.as_str() {
        "mod" => (dir.parent()?, dir.file_name()?.to_str()?.to_string()),
        _ => (dir, stem),
    };
    let candidates = [
        dir.join("main.rs"),
        dir.join("mod.rs"),
        dir.with_extension("rs"),
    ];
    let parent = candidates.into_iter().find(|c| c.is_file() && c != file)?;
    Some((parent, name))
}

#[test]
fn every_test_file_is_part_of_a_test_binary() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut packages = vec![root.to_path_buf()];
    for e in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        packages.push(e.path());
    }
    let mut orphans = Vec::new();
    let mut checked = 0;
    for package in packages {
        let manifest = std::fs::read_to_string(package.join("Cargo.toml")).unwrap_or_default();
        let mut files = Vec::new();
        rust_files(&package.join("tests"), &mut files);
        for file in files {
            let rel = file.strip_prefix(&package).unwrap();
            let rel_text = rel.to_string_lossy().to_string();
            // A target's own file: a test binary's root, or a listed target.
            let is_root = file.file_name().is_some_and(|n| n == "main.rs")
                && file.parent().and_then(Path::parent) == Some(&package.join("tests"));
            if is_root || manifest.contains(&format!("\"{rel_text}\"")) {
                continue;
            }
            checked += 1;
            let declared = parent_of(&file).is_some_and(|(parent, name)| {
                std::fs::read_to_string(parent).is_ok_and(|t| declares(&t, &name))
            });
            if !declared {
                orphans.push(file.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    assert!(checked > 100, "only {checked} test files found");
    assert!(
        orphans.is_empty(),
        "test files no test binary declares (add `mod NAME;` to the parent module): {orphans:#?}"
    );
}

#[test]
fn the_check_sees_an_undeclared_file() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("tests/x");
    std::fs::create_dir_all(t.join("sub")).unwrap();
    std::fs::write(t.join("main.rs"), "mod a;\nmod sub;\n").unwrap();
    std::fs::write(t.join("sub/mod.rs"), "pub mod c;\n").unwrap();
    for (file, want) in [
        ("a.rs", true),
        ("b.rs", false),
        ("sub/c.rs", true),
        ("sub/d.rs", false),
    ] {
        let p = t.join(file);
        std::fs::write(&p, "").unwrap();
        let got = parent_of(&p).is_some_and(|(parent, name)| {
            declares(&std::fs::read_to_string(parent).unwrap(), &name)
        });
        assert_eq!(got, want, "{file}");
    }
}
