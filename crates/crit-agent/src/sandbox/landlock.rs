//! Landlock rules for the spawner thread (see the module above for the set).

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, LandlockStatus, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
};

use super::{SandboxError, SandboxRules, SandboxStatus};

/// The newest ABI this crate knows; older kernels enforce what they support
/// (best effort) and the status reports their version.
const TARGET: ABI = ABI::V10;

pub(super) fn restrict_current_thread(rules: &SandboxRules) -> Result<SandboxStatus, SandboxError> {
    let err = |e: &dyn std::fmt::Display| SandboxError::Landlock(e.to_string());
    let read = AccessFs::ReadFile | AccessFs::ReadDir;
    let exec = read | AccessFs::Execute;
    let device = AccessFs::ReadFile | AccessFs::WriteFile;
    let mut ruleset = Ruleset::default()
        .handle_access(AccessFs::from_all(TARGET))
        .and_then(|r| r.handle_access(AccessNet::from_all(TARGET)))
        .and_then(|r| r.scope(Scope::from_all(TARGET)))
        .and_then(Ruleset::create)
        .map_err(|e| err(&e))?;
    for (paths, access) in [
        (&rules.read, read),
        (&rules.exec, exec),
        (&rules.devices, device),
    ] {
        for path in paths {
            let fd = match PathFd::new(path) {
                Ok(fd) => fd,
                // Gone since the rules were made: no rule, so no access.
                Err(_) if !path.exists() => continue,
                Err(e) => return Err(err(&format!("{}: {e}", path.display()))),
            };
            let access: BitFlags<AccessFs> = if path.is_dir() {
                access
            } else {
                access & AccessFs::from_file(TARGET)
            };
            ruleset = ruleset
                .add_rule(PathBeneath::new(fd, access))
                .map_err(|e| err(&format!("{}: {e}", path.display())))?;
        }
    }
    let status = ruleset.restrict_self().map_err(|e| err(&e))?;
    Ok(match (status.ruleset, status.landlock) {
        (RulesetStatus::NotEnforced, landlock) => SandboxStatus::Unavailable {
            reason: unavailable(landlock),
        },
        (_, LandlockStatus::Available { effective_abi, .. }) => SandboxStatus::Active {
            abi: effective_abi as u32,
        },
        (_, landlock) => SandboxStatus::Unavailable {
            reason: unavailable(landlock),
        },
    })
}

fn unavailable(status: LandlockStatus) -> String {
    match status {
        LandlockStatus::NotEnabled => {
            "the kernel has Landlock but it is not enabled (add `landlock` to the `lsm=` boot \
             parameter)"
                .into()
        }
        LandlockStatus::NotImplemented => {
            "this kernel has no Landlock (Linux 5.13 or later built with it)".into()
        }
        LandlockStatus::Available { .. } => "Landlock did not enforce the rules".into(),
    }
}
