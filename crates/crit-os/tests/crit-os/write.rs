//! The confined writer on real directories: every way a checkout can lay out
//! symlinks (and other traps) beneath a root, each tried through both ways of
//! opening directories (`openat2`, and the forced component walk), asserting
//! that nothing outside the root changes and that the error names the path.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};

use crit_os::read::InputLimits;
use crit_os::write::{FsError, Replace, Resolution, Root, WriteOptions};
use tempfile::TempDir;

const BOTH: [Resolution; 2] = [Resolution::Auto, Resolution::Walk];

/// A project root and, beside it, a directory standing for the user's files.
struct Scene {
    _tmp: TempDir,
    root: PathBuf,
    outside: PathBuf,
}

impl Scene {
    fn new() -> Self {
        let tmp = TempDir::new().unwrap();
        let root = tmp.path().join("project");
        let outside = tmp.path().join("home");
        fs::create_dir(&root).unwrap();
        fs::create_dir(&outside).unwrap();
        fs::write(outside.join("secret.txt"), "precious\n").unwrap();
        Scene {
            _tmp: tmp,
            root,
            outside,
        }
    }

    fn open(&self, how: Resolution) -> Root {
        Root::open(&self.root).unwrap().with_resolution(how)
    }

    /// Every file below `outside` with its content.
    fn outside_listing(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        list(&self.outside, &mut out);
        out.sort();
        out
    }

    fn assert_outside_untouched(&self) {
        assert_eq!(
            self.outside_listing(),
            vec![("secret.txt".to_string(), "precious\n".to_string())]
        );
    }
}

fn list(dir: &Path, out: &mut Vec<(String, String)>) {
    for e in fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if e.file_type().unwrap().is_dir() {
            let mut sub = Vec::new();
            list(&p, &mut sub);
            out.extend(sub.into_iter().map(|(n, c)| (format!("{name}/{n}"), c)));
        } else {
            out.push((name, fs::read_to_string(&p).unwrap_or_default()));
        }
    }
}

fn assert_symlink_error(e: &FsError, link_ends_with: &str) {
    match e {
        FsError::Symlink { link, .. } => {
            assert!(
                link.ends_with(link_ends_with),
                "{link:?} vs {link_ends_with}"
            )
        }
        other => panic!("expected a symlink refusal, got {other:?}"),
    }
    let msg = e.to_string();
    assert!(msg.contains("is a symbolic link"), "{msg}");
    assert!(msg.contains(link_ends_with), "{msg}");
}

#[test]
fn a_symlinked_final_file_is_refused_for_writes_and_reads() {
    for how in BOTH {
        let s = Scene::new();
        fs::create_dir(s.root.join(".crit")).unwrap();
        symlink(
            s.outside.join("secret.txt"),
            s.root.join(".crit/config.yaml"),
        )
        .unwrap();
        let root = s.open(how);
        let e = root.write_atomic(".crit/config.yaml", b"evil").unwrap_err();
        assert_symlink_error(&e, ".crit/config.yaml");
        assert!(e.to_string().starts_with("refusing to write "), "{e}");
        let e = root
            .read(".crit/config.yaml", InputLimits::default())
            .unwrap_err();
        assert_symlink_error(&e, ".crit/config.yaml");
        let e = root.append(".crit/config.yaml", b"x", 0o600).unwrap_err();
        assert_symlink_error(&e, ".crit/config.yaml");
        let e = root.try_lock(".crit/config.yaml").unwrap_err();
        assert_symlink_error(&e, ".crit/config.yaml");
        let e = root
            .create_truncate(".crit/config.yaml", 0o600)
            .unwrap_err();
        assert_symlink_error(&e, ".crit/config.yaml");
        s.assert_outside_untouched();
        // Still a link, and no temp file left beside it.
        assert!(
            fs::symlink_metadata(s.root.join(".crit/config.yaml"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_dir(s.root.join(".crit")).unwrap().count(), 1);
    }
}

#[test]
fn replacing_the_link_itself_leaves_its_target_alone() {
    for how in BOTH {
        let s = Scene::new();
        symlink(s.outside.join("secret.txt"), s.root.join("plan.md")).unwrap();
        let opts = WriteOptions {
            replace: Replace::Link,
            ..WriteOptions::default()
        };
        s.open(how)
            .write_atomic_with("plan.md", b"# Plan\n", opts)
            .unwrap();
        let m = fs::symlink_metadata(s.root.join("plan.md")).unwrap();
        assert!(m.file_type().is_file());
        assert_eq!(
            fs::read_to_string(s.root.join("plan.md")).unwrap(),
            "# Plan\n"
        );
        s.assert_outside_untouched();
    }
}

#[test]
fn a_symlinked_parent_directory_is_refused() {
    for how in BOTH {
        let s = Scene::new();
        symlink(&s.outside, s.root.join(".crit")).unwrap();
        let root = s.open(how);
        for e in [
            root.write_atomic(".crit/config.yaml", b"evil").unwrap_err(),
            root.write_atomic(".crit/sessions/s1.json", b"{}")
                .unwrap_err(),
            root.create_dir_all(".crit/sessions", 0o700).unwrap_err(),
            root.read(".crit/secret.txt", InputLimits::default())
                .unwrap_err(),
            root.subdir(".crit", None).unwrap_err(),
        ] {
            assert_symlink_error(&e, ".crit");
        }
        assert!(root.remove(".crit/secret.txt").is_err());
        assert!(root.exists(".crit/secret.txt").is_err());
        s.assert_outside_untouched();
    }
}

#[test]
fn a_symlink_in_the_middle_of_a_deep_path_is_refused() {
    for how in BOTH {
        let s = Scene::new();
        fs::create_dir_all(s.root.join("a")).unwrap();
        fs::create_dir_all(s.outside.join("c")).unwrap();
        symlink(&s.outside, s.root.join("a/b")).unwrap();
        let root = s.open(how);
        let e = root.write_atomic("a/b/c/file.txt", b"evil").unwrap_err();
        assert_symlink_error(&e, "a/b");
        assert!(e.to_string().contains("a/b/c/file.txt"), "{e}");
        let e = root.create_dir_all("a/b/c/d", 0o755).unwrap_err();
        assert_symlink_error(&e, "a/b");
        assert!(!s.outside.join("c/file.txt").exists());
        assert!(!s.outside.join("c/d").exists());
    }
}

#[test]
fn a_symlink_to_a_directory_inside_the_root_is_refused_too() {
    for how in BOTH {
        let s = Scene::new();
        fs::create_dir(s.root.join("real")).unwrap();
        symlink("real", s.root.join("alias")).unwrap();
        let e = s.open(how).write_atomic("alias/x", b"x").unwrap_err();
        assert_symlink_error(&e, "alias");
        assert!(!s.root.join("real/x").exists());
    }
}

#[test]
fn dot_dot_and_absolute_paths_are_refused() {
    for how in BOTH {
        let s = Scene::new();
        fs::create_dir(s.root.join("sub")).unwrap();
        let root = s.open(how);
        let abs = s.outside.join("secret.txt");
        for rel in [
            Path::new("../home/secret.txt"),
            Path::new("sub/../../home/secret.txt"),
            Path::new("sub/.."),
            abs.as_path(),
            Path::new(""),
            Path::new("."),
        ] {
            let e = root.write_atomic(rel, b"evil").unwrap_err();
            assert!(matches!(e, FsError::Escapes { .. }), "{rel:?}: {e:?}");
            assert!(e.to_string().contains("must stay beneath"), "{e}");
            assert!(root.read(rel, InputLimits::default()).is_err());
            assert!(root.remove(rel).is_err());
        }
        s.assert_outside_untouched();
        // `.` components are harmless and skipped.
        root.write_atomic("./sub/./ok.txt", b"ok").unwrap();
        assert_eq!(fs::read_to_string(s.root.join("sub/ok.txt")).unwrap(), "ok");
    }
}

#[test]
fn a_dangling_symlink_is_refused_and_its_target_never_created() {
    for how in BOTH {
        let s = Scene::new();
        let target = s.outside.join("planted.txt");
        symlink(&target, s.root.join("state.yaml")).unwrap();
        let root = s.open(how);
        let e = root.write_atomic("state.yaml", b"evil").unwrap_err();
        assert_symlink_error(&e, "state.yaml");
        let e = root.append("state.yaml", b"evil", 0o600).unwrap_err();
        assert_symlink_error(&e, "state.yaml");
        let e = root.try_lock("state.yaml").unwrap_err();
        assert_symlink_error(&e, "state.yaml");
        assert!(!target.exists());
        // The name is taken (by a link): it exists; removing removes the link.
        assert!(root.exists("state.yaml").unwrap());
        assert!(root.remove("state.yaml").unwrap());
        assert!(!root.remove("state.yaml").unwrap());
        s.assert_outside_untouched();
    }
}

#[test]
fn a_fifo_at_the_target_is_refused_without_blocking() {
    for how in BOTH {
        let s = Scene::new();
        let fifo = s.root.join("plan.md");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let root = s.open(how);
        for e in [
            root.write_atomic("plan.md", b"x").unwrap_err(),
            root.read("plan.md", InputLimits::default()).unwrap_err(),
            root.append("plan.md", b"x", 0o600).unwrap_err(),
            root.try_lock("plan.md").unwrap_err(),
        ] {
            assert!(matches!(e, FsError::NotAFile { .. }), "{e:?}");
            assert!(e.to_string().contains("plan.md: not a regular file"), "{e}");
        }
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    }
}

use std::os::unix::fs::FileTypeExt;

#[test]
fn a_hard_link_at_the_target_is_replaced_never_written_through() {
    for how in BOTH {
        let s = Scene::new();
        let secret = s.outside.join("secret.txt");
        if fs::hard_link(&secret, s.root.join("plan.md")).is_err() {
            return; // another file system: nothing to test here
        }
        s.open(how).write_atomic("plan.md", b"# new\n").unwrap();
        assert_eq!(
            fs::read_to_string(s.root.join("plan.md")).unwrap(),
            "# new\n"
        );
        s.assert_outside_untouched();
        assert_eq!(fs::metadata(&secret).unwrap().nlink(), 1);
    }
}

#[test]
fn writes_create_parents_keep_modes_and_leave_no_temp_files() {
    for how in BOTH {
        let s = Scene::new();
        let root = s.open(how);
        root.write_atomic_with(".crit/sessions/s1.json", b"{}", WriteOptions::private())
            .unwrap();
        let mode = |p: &str| fs::metadata(s.root.join(p)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(".crit/sessions/s1.json"), 0o600);
        assert_eq!(mode(".crit/sessions"), 0o700);
        assert_eq!(mode(".crit"), 0o700);
        // An existing file keeps its mode when none is asked for.
        fs::write(s.root.join("plan.md"), "v1").unwrap();
        fs::set_permissions(s.root.join("plan.md"), fs::Permissions::from_mode(0o640)).unwrap();
        root.write_atomic("plan.md", b"v2").unwrap();
        assert_eq!(mode("plan.md"), 0o640);
        assert_eq!(
            root.read_to_string("plan.md", InputLimits::default())
                .unwrap(),
            "v2"
        );
        let names: Vec<_> = fs::read_dir(&s.root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(!names.iter().any(|n| n.contains("crit-tmp")), "{names:?}");
        // A directory where the file should go: refused, nothing left behind.
        let e = root.write_atomic(".crit", b"x").unwrap_err();
        assert!(matches!(e, FsError::NotAFile { .. }), "{e:?}");
        // A file where a directory should be.
        let e = root.write_atomic("plan.md/x", b"x").unwrap_err();
        assert!(matches!(e, FsError::NotADirectory { .. }), "{e:?}");
        // Appends add; reads are capped and name the file.
        root.append("audit/log.jsonl", b"{\"a\":1}\n", 0o600)
            .unwrap();
        root.append("audit/log.jsonl", b"{\"a\":2}\n", 0o600)
            .unwrap();
        assert_eq!(
            root.read("audit/log.jsonl", InputLimits::default())
                .unwrap(),
            b"{\"a\":1}\n{\"a\":2}\n"
        );
        assert_eq!(mode("audit"), 0o700);
        let e = root
            .read("audit/log.jsonl", InputLimits { max_bytes: 3 })
            .unwrap_err();
        assert!(
            e.to_string().contains("audit/log.jsonl: larger than"),
            "{e}"
        );
        assert!(
            root.read("nope", InputLimits::default())
                .unwrap_err()
                .is_not_found()
        );
        assert!(
            root.read("no/such/dir", InputLimits::default())
                .unwrap_err()
                .is_not_found()
        );
        assert!(!root.exists("no/such/dir").unwrap());
        // A subdirectory as a root of its own stays confined too.
        let sub = root.subdir(".crit", None).unwrap();
        assert_eq!(
            sub.read("sessions/s1.json", InputLimits::default())
                .unwrap(),
            b"{}"
        );
        assert!(root.create_new("once", b"1", 0o600).unwrap());
        assert!(!root.create_new("once", b"2", 0o600).unwrap());
        assert_eq!(fs::read_to_string(s.root.join("once")).unwrap(), "1");
    }
}

#[test]
fn a_lock_keeps_a_concurrent_writer_out_until_dropped() {
    for how in BOTH {
        let s = Scene::new();
        let root = s.open(how);
        let held = root
            .try_lock(".crit-plan.lock")
            .unwrap()
            .expect("free at first");
        // Another open file description (another run) cannot take it.
        let other = Root::open(&s.root).unwrap();
        assert!(other.try_lock(".crit-plan.lock").unwrap().is_none());
        drop(held);
        assert!(other.try_lock(".crit-plan.lock").unwrap().is_some());
        assert!(other.lock(".crit-plan.lock").is_ok());
    }
}

#[test]
fn concurrent_atomic_writers_leave_one_whole_file() {
    let s = Scene::new();
    let root = std::sync::Arc::new(s.open(Resolution::Auto));
    let writers: Vec<_> = (0..8u8)
        .map(|i| {
            let root = std::sync::Arc::clone(&root);
            std::thread::spawn(move || {
                for _ in 0..20 {
                    root.write_atomic("state.yaml", &[b'a' + i; 4096]).unwrap();
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let text = fs::read(s.root.join("state.yaml")).unwrap();
    assert_eq!(text.len(), 4096);
    assert!(text.iter().all(|b| *b == text[0]), "a torn file");
    assert_eq!(fs::read_dir(&s.root).unwrap().count(), 1);
}

#[test]
fn the_root_itself_may_be_reached_through_a_symlink() {
    let s = Scene::new();
    let via = s.outside.join("project-link");
    symlink(&s.root, &via).unwrap();
    let root = Root::open(&via).unwrap();
    root.write_atomic("plan.md", b"ok").unwrap();
    assert_eq!(fs::read_to_string(s.root.join("plan.md")).unwrap(), "ok");
    let e = Root::open(s.root.join("missing")).unwrap_err();
    assert!(e.is_not_found() && e.to_string().contains("missing"), "{e}");
    let state = s.root.join("state/crit");
    Root::open_or_create(&state, 0o700).unwrap();
    assert_eq!(
        fs::metadata(&state).unwrap().permissions().mode() & 0o777,
        0o700
    );
}

#[test]
fn a_file_created_to_write_as_it_goes_stays_beneath_the_root() {
    use std::io::Write;
    for how in BOTH {
        let s = Scene::new();
        symlink(&s.outside, s.root.join("sessions")).unwrap();
        let root = s.open(how);
        let e = root
            .create_truncate("sessions/transcript.jsonl", 0o600)
            .unwrap_err();
        assert_symlink_error(&e, "sessions");
        // Beneath a real directory: created, then truncated on the next call.
        let mut f = root.create_truncate("logs/t.jsonl", 0o600).unwrap();
        f.write_all(b"one\n").unwrap();
        drop(f);
        root.create_truncate("logs/t.jsonl", 0o600).unwrap();
        assert_eq!(fs::read(s.root.join("logs/t.jsonl")).unwrap(), b"");
        let mode = fs::metadata(s.root.join("logs/t.jsonl")).unwrap().mode() & 0o777;
        assert_eq!(mode & 0o077, 0, "{mode:o}");
        s.assert_outside_untouched();
    }
}
