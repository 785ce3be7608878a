//! A directory swapped for a symlink while crit writes beneath it: whichever
//! moment the swap lands, the write goes into the real directory or is
//! refused, and nothing ever reaches the symlink's target.

use std::fs;
use std::os::unix::fs::symlink;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crit_os::write::{Resolution, Root};
use tempfile::TempDir;

#[test]
fn a_directory_swapped_for_a_symlink_is_never_followed() {
    for how in [Resolution::Auto, Resolution::Walk] {
        let tmp = TempDir::new().unwrap();
        let root_dir = tmp.path().join("project");
        let outside = tmp.path().join("home");
        fs::create_dir_all(root_dir.join("d")).unwrap();
        fs::create_dir(&outside).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let swapper = {
            let stop = Arc::clone(&stop);
            let d = root_dir.join("d");
            let parked = root_dir.join("d.real");
            let link = root_dir.join("d.link");
            let outside = outside.clone();
            std::thread::spawn(move || {
                let mut swaps = 0u32;
                while !stop.load(Ordering::Relaxed) {
                    // d → real directory, then d → symlink to outside, atomically.
                    let _ = fs::rename(&d, &parked);
                    let _ = symlink(&outside, &link);
                    let _ = fs::rename(&link, &d);
                    let _ = fs::remove_file(&d);
                    let _ = fs::rename(&parked, &d);
                    swaps += 1;
                }
                swaps
            })
        };
        let root = Root::open(&root_dir).unwrap().with_resolution(how);
        let (mut written, mut refused) = (0, 0);
        for i in 0..500 {
            match root.write_atomic(format!("d/f{}", i % 7), b"data") {
                Ok(()) => written += 1,
                Err(_) => refused += 1,
            }
        }
        stop.store(true, Ordering::Relaxed);
        let swaps = swapper.join().unwrap();
        assert_eq!(
            fs::read_dir(&outside).unwrap().count(),
            0,
            "{how:?}: a write went through the symlink ({written} written, {refused} refused, {swaps} swaps)"
        );
        assert_eq!(written + refused, 500);
    }
}
