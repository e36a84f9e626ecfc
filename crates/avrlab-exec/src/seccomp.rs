//! The seccomp filters every sandboxed process runs under, built here as classic BPF and handed
//! to bubblewrap (`--add-seccomp-fd`), which installs them just before it starts the command.
//!
//! The filters are a deny list: Maven, javac and the JVM use a wide and changing set of system
//! calls, while the calls refused here are ones that neither needs and that are the usual ways
//! out of a container or into the kernel's less-hardened corners. Each refusal says why below.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// One compiled filter, as the bytes of a `struct sock_filter` array (what bubblewrap reads).
pub(crate) struct CompiledFilter {
    pub(crate) bytes: Vec<u8>,
}

/// The filters, and the words that describe them in the enforcement log.
pub(crate) struct Filters {
    pub(crate) programs: Vec<CompiledFilter>,
    pub(crate) description: String,
}

/// System calls refused with EPERM whatever their arguments, each with its reason.
fn refused() -> Vec<(i64, &'static str)> {
    let mut calls = vec![
        // Mount table changes: with a user namespace these would let the sandbox remount the
        // read-only dependency cache or task files writable, or uncover what the mounts hide.
        (libc::SYS_mount, "mount"),
        (libc::SYS_umount2, "umount2"),
        (libc::SYS_pivot_root, "pivot_root"),
        (libc::SYS_chroot, "chroot"),
        (libc::SYS_open_tree, "open_tree"),
        (libc::SYS_move_mount, "move_mount"),
        (libc::SYS_fsopen, "fsopen"),
        (libc::SYS_fsconfig, "fsconfig"),
        (libc::SYS_fsmount, "fsmount"),
        (libc::SYS_fspick, "fspick"),
        (libc::SYS_mount_setattr, "mount_setattr"),
        // New namespaces (a fresh user namespace gives back every capability inside it) and
        // joining other ones.
        (libc::SYS_unshare, "unshare"),
        (libc::SYS_setns, "setns"),
        // Reading or changing another process of the sandbox: the forked test JVM must not
        // reach into the Maven process that reports its results.
        (libc::SYS_ptrace, "ptrace"),
        (libc::SYS_process_vm_readv, "process_vm_readv"),
        (libc::SYS_process_vm_writev, "process_vm_writev"),
        (libc::SYS_kcmp, "kcmp"),
        // Kernel keyrings are not namespaced: they would be shared with the host user.
        (libc::SYS_keyctl, "keyctl"),
        (libc::SYS_add_key, "add_key"),
        (libc::SYS_request_key, "request_key"),
        // Large kernel attack surfaces that no build or test needs.
        (libc::SYS_bpf, "bpf"),
        (libc::SYS_perf_event_open, "perf_event_open"),
        (libc::SYS_userfaultfd, "userfaultfd"),
        (libc::SYS_io_uring_setup, "io_uring_setup"),
        (libc::SYS_io_uring_enter, "io_uring_enter"),
        (libc::SYS_io_uring_register, "io_uring_register"),
        // File handles bypass the mount view: a handle names a file by inode on its file system,
        // whether or not the sandbox can see a path to it.
        (libc::SYS_open_by_handle_at, "open_by_handle_at"),
        (libc::SYS_name_to_handle_at, "name_to_handle_at"),
        // Whole-machine operations, refused even though dropped capabilities also refuse them.
        (libc::SYS_kexec_load, "kexec_load"),
        (libc::SYS_kexec_file_load, "kexec_file_load"),
        (libc::SYS_init_module, "init_module"),
        (libc::SYS_finit_module, "finit_module"),
        (libc::SYS_delete_module, "delete_module"),
        (libc::SYS_swapon, "swapon"),
        (libc::SYS_swapoff, "swapoff"),
        (libc::SYS_reboot, "reboot"),
        (libc::SYS_acct, "acct"),
        (libc::SYS_quotactl, "quotactl"),
        (libc::SYS_syslog, "syslog"),
        (libc::SYS_vhangup, "vhangup"),
    ];
    #[cfg(target_arch = "x86_64")]
    calls.extend([
        // Direct port I/O and the old shared-library loader (x86 only).
        (libc::SYS_iopl, "iopl"),
        (libc::SYS_ioperm, "ioperm"),
        (libc::SYS_uselib, "uselib"),
    ]);
    calls
}

/// Namespace flags of `clone`: any of them makes a new namespace (CLONE_NEWTIME is not listed:
/// its bit is part of the exit signal for `clone` and it exists only for `clone3`).
const CLONE_NAMESPACE_FLAGS: [u64; 7] = [
    libc::CLONE_NEWNS as u64,
    libc::CLONE_NEWCGROUP as u64,
    libc::CLONE_NEWUTS as u64,
    libc::CLONE_NEWIPC as u64,
    libc::CLONE_NEWUSER as u64,
    libc::CLONE_NEWPID as u64,
    libc::CLONE_NEWNET as u64,
];

/// Terminal ioctls that push input into, or control, the terminal (the sandbox gets its own
/// session, so these are refused twice over).
const TIOCSTI: u64 = 0x5412;
const TIOCLINUX: u64 = 0x541C;

/// `personality` values that change nothing that matters: PER_LINUX, PER_LINUX32 and the query.
/// Others can turn off address-space randomization (ADDR_NO_RANDOMIZE) or make data executable
/// (READ_IMPLIES_EXEC).
const HARMLESS_PERSONAS: [u64; 3] = [0, 8, 0xffff_ffff];

/// AF_VSOCK is not network-namespaced: it reaches the hypervisor or host of a virtual machine
/// even from a sandbox without network.
const AF_VSOCK: u64 = 40;

fn condition(arg: u8, len: SeccompCmpArgLen, op: SeccompCmpOp, value: u64) -> SeccompCondition {
    SeccompCondition::new(arg, len, op, value).expect("argument index below 6")
}

fn rule(conditions: Vec<SeccompCondition>) -> SeccompRule {
    SeccompRule::new(conditions).expect("a rule has at least one condition")
}

fn target_arch() -> Option<TargetArch> {
    if cfg!(target_arch = "x86_64") {
        Some(TargetArch::x86_64)
    } else if cfg!(target_arch = "aarch64") {
        Some(TargetArch::aarch64)
    } else {
        None
    }
}

fn to_bytes(program: &BpfProgram) -> CompiledFilter {
    let mut bytes = Vec::with_capacity(program.len() * 8);
    for instruction in program {
        bytes.extend_from_slice(&instruction.code.to_ne_bytes());
        bytes.push(instruction.jt);
        bytes.push(instruction.jf);
        bytes.extend_from_slice(&instruction.k.to_ne_bytes());
    }
    CompiledFilter { bytes }
}

/// The deny list, refusing with EPERM.
fn deny_list(arch: TargetArch) -> BpfProgram {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = refused()
        .into_iter()
        .map(|(nr, _)| (nr, Vec::new()))
        .collect();
    rules.insert(
        libc::SYS_clone,
        CLONE_NAMESPACE_FLAGS
            .iter()
            .map(|&flag| {
                rule(vec![condition(
                    0,
                    SeccompCmpArgLen::Qword,
                    SeccompCmpOp::MaskedEq(flag),
                    flag,
                )])
            })
            .collect(),
    );
    // The kernel reads the request as a 32-bit number, so only the low word is compared.
    rules.insert(
        libc::SYS_ioctl,
        [TIOCSTI, TIOCLINUX]
            .iter()
            .map(|&request| {
                rule(vec![condition(
                    1,
                    SeccompCmpArgLen::Dword,
                    SeccompCmpOp::Eq,
                    request,
                )])
            })
            .collect(),
    );
    rules.insert(
        libc::SYS_personality,
        vec![rule(
            HARMLESS_PERSONAS
                .iter()
                .map(|&p| condition(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, p))
                .collect(),
        )],
    );
    rules.insert(
        libc::SYS_socket,
        vec![rule(vec![condition(
            0,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Eq,
            AF_VSOCK,
        )])],
    );
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .expect("allow and refuse are different actions");
    BpfProgram::try_from(filter).expect("the deny list compiles")
}

/// `clone3` passes its flags in memory, where a filter cannot read them. Refusing it with ENOSYS
/// makes the C library fall back to `clone`, whose flags the deny list checks (a separate filter,
/// since one seccompiler filter has one refusal action).
fn clone3_fallback(arch: TargetArch) -> BpfProgram {
    let rules = BTreeMap::from([(libc::SYS_clone3, Vec::new())]);
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch,
    )
    .expect("allow and refuse are different actions");
    BpfProgram::try_from(filter).expect("the clone3 filter compiles")
}

/// On x86_64 the x32 ABI numbers every system call again with bit 30 set, past the deny list's
/// numbers; where the kernel supports x32 those would slip through. This filter refuses every
/// x32 call. (The other filters kill any process that calls in with another architecture, such
/// as 32-bit `int 0x80` calls.)
#[cfg(target_arch = "x86_64")]
fn x32_guard() -> BpfProgram {
    use seccompiler::sock_filter;
    const LD_W_ABS: u16 = 0x20;
    const JEQ_K: u16 = 0x15;
    const JGE_K: u16 = 0x35;
    const RET_K: u16 = 0x06;
    const AUDIT_ARCH_X86_64: u32 = 0xC000_003E;
    const X32_SYSCALL_BIT: u32 = 0x4000_0000;
    let op = |code, jt, jf, k| sock_filter { code, jt, jf, k };
    vec![
        op(LD_W_ABS, 0, 0, 4), // seccomp_data.arch
        op(JEQ_K, 0, 3, AUDIT_ARCH_X86_64),
        op(LD_W_ABS, 0, 0, 0), // seccomp_data.nr
        op(JGE_K, 0, 1, X32_SYSCALL_BIT),
        op(RET_K, 0, 0, libc::SECCOMP_RET_ERRNO | libc::EPERM as u32),
        op(RET_K, 0, 0, libc::SECCOMP_RET_ALLOW),
    ]
}

/// The filters for this machine's architecture, or `None` where avrlab has none (then the log
/// says that no seccomp filter is applied).
pub(crate) fn filters() -> Option<Filters> {
    let arch = target_arch()?;
    #[cfg_attr(
        not(target_arch = "x86_64"),
        expect(unused_mut, reason = "only x86_64 has a third filter")
    )]
    let mut programs = vec![to_bytes(&deny_list(arch)), to_bytes(&clone3_fallback(arch))];
    #[cfg(target_arch = "x86_64")]
    programs.push(to_bytes(&x32_guard()));
    let names: Vec<&str> = refused().into_iter().map(|(_, name)| name).collect();
    let description = format!(
        "seccomp: refuses {}, clone with namespace flags, ioctl TIOCSTI/TIOCLINUX, personality changes, AF_VSOCK sockets (EPERM), clone3 (ENOSYS, falls back to clone), other architectures (kill){}",
        names.join(" "),
        if cfg!(target_arch = "x86_64") {
            ", x32 calls (EPERM)"
        } else {
            ""
        }
    );
    Some(Filters {
        programs,
        description,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_filter_compiles_into_whole_instructions() {
        let filters = filters().expect("x86_64 or aarch64");
        assert!(filters.programs.len() >= 2);
        for program in &filters.programs {
            assert!(!program.bytes.is_empty());
            assert_eq!(program.bytes.len() % 8, 0);
            // The kernel refuses programs over BPF_MAXINSNS (4096) instructions.
            assert!(program.bytes.len() / 8 < 4096);
        }
        assert!(filters.description.contains("ptrace"));
    }
}
