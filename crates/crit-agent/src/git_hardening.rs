//! What makes a git subprocess inert in a repository crit does not trust:
//! options before the subcommand that switch off pagers, hooks, fsmonitor,
//! external diff and signature programs, and `-c` overrides for the clean and
//! smudge filters a repository defines. Shared by the Bash tool's git and the
//! review scope's git, so both are hardened the same way.

/// Put before the subcommand of every git run.
#[rustfmt::skip]
pub const HARDENING: &[&str] = &[
    "--no-pager",
    "-c", "core.fsmonitor=false",
    "-c", "core.hooksPath=/dev/null",
    "-c", "core.pager=cat",
    "-c", "diff.external=",
    "-c", "protocol.allow=never",
    "-c", "log.showSignature=false",
    "-c", "gpg.program=false",
    "-c", "gpg.ssh.program=false",
    "-c", "gpg.x509.program=false",
];

/// `git config --null --name-only --show-scope --get-regexp ^filter\\.` output
/// (`scope\0key\0` pairs) to `-c filter.<driver>.<k>=` overrides for the
/// drivers not defined in the user's global config (git-lfs stays).
pub fn filter_overrides(listing: &str) -> Vec<String> {
    let mut drivers: Vec<&str> = Vec::new();
    let mut parts = listing.split('\0');
    while let (Some(scope), Some(key)) = (parts.next(), parts.next()) {
        let driver = key
            .strip_prefix("filter.")
            .and_then(|k| k.rsplit_once('.'))
            .map(|(d, _)| d);
        if let Some(d) = driver.filter(|d| scope != "global" && !d.is_empty())
            && !drivers.contains(&d)
        {
            drivers.push(d);
        }
    }
    drivers
        .iter()
        .flat_map(|d| {
            ["clean=", "smudge=", "process=", "required=false"]
                .map(|k| ["-c".to_string(), format!("filter.{d}.{k}")])
        })
        .flatten()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_overrides_skip_global_drivers() {
        let listing =
            "global\0filter.lfs.clean\0local\0filter.evil.clean\0local\0filter.a.b.smudge\0";
        assert_eq!(
            filter_overrides(listing),
            [
                "-c",
                "filter.evil.clean=",
                "-c",
                "filter.evil.smudge=",
                "-c",
                "filter.evil.process=",
                "-c",
                "filter.evil.required=false",
                "-c",
                "filter.a.b.clean=",
                "-c",
                "filter.a.b.smudge=",
                "-c",
                "filter.a.b.process=",
                "-c",
                "filter.a.b.required=false",
            ]
        );
    }

    #[test]
    fn filter_overrides_keep_global_drivers() {
        let listing =
            "global\0filter.lfs.clean\0local\0filter.evil.clean\0local\0filter.evil.smudge\0";
        assert_eq!(
            filter_overrides(listing),
            [
                "-c",
                "filter.evil.clean=",
                "-c",
                "filter.evil.smudge=",
                "-c",
                "filter.evil.process=",
                "-c",
                "filter.evil.required=false"
            ]
        );
    }
}
