//! What confinement costs a write: the confined writer through `openat2` and
//! through the component walk, against a plain temp-file-and-rename, for a
//! file three directories below the root (a session file under `.crit/`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;

use crit_os::write::{Resolution, Root, WriteOptions};
use criterion::{Criterion, criterion_group, criterion_main};

fn writes(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let bytes = vec![b'x'; 4096];
    let rel = ".crit/sessions/s1/state.json";
    // fsync dominates on a real disk; without it the cost of resolving shows.
    let mut group = c.benchmark_group("write_atomic_4k_3_deep");
    for (name, how) in [("openat2", Resolution::Auto), ("walk", Resolution::Walk)] {
        let root = Root::open(dir.path()).unwrap().with_resolution(how);
        root.write_atomic_with(rel, &bytes, WriteOptions::private())
            .unwrap();
        group.bench_function(name, |b| {
            b.iter(|| root.write_atomic(rel, &bytes).unwrap());
        });
    }
    let path = dir.path().join(rel);
    group.bench_function("std_rename_unconfined", |b| {
        b.iter(|| {
            let tmp = path.with_extension("tmp");
            let mut f = std::fs::File::create(&tmp).unwrap();
            f.write_all(&bytes).unwrap();
            f.sync_all().unwrap();
            std::fs::rename(&tmp, &path).unwrap();
        });
    });
    group.finish();
    let root = Root::open(dir.path()).unwrap();
    c.bench_function("read_4k_3_deep", |b| {
        b.iter(|| {
            root.read(rel, crit_os::read::InputLimits::default())
                .unwrap()
        });
    });
}

criterion_group!(benches, writes);
criterion_main!(benches);
