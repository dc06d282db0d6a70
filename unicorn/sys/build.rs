//! Builds unicorn 2.1.5 with endgate's patches.
//!
//! 1. Finds the published `unicorn-engine-sys` 2.1.5 crate, which carries unicorn's whole C
//!    source: cargo downloads it when asked for the metadata of a throw-away manifest that depends
//!    on it (this crate takes its place in endgate's own build, so cargo would not fetch it
//!    otherwise). `ENDGATE_UNICORN_SOURCE=DIR` names an unpacked copy instead.
//! 2. Copies it to `OUT_DIR/unicorn` and applies `../patches/*.patch` in name order with
//!    `patch -p1`. Only files whose patched content changed are rewritten, so the C build stays
//!    incremental when a patch is added, changed or removed.
//! 3. Builds the static `libunicorn.a` for the architectures the features select, with cmake,
//!    always optimised (unicorn's C is the emulator's hot path).
//! 4. Generates the Rust bindings from the copy's `unicorn.h` with bindgen, naming every item as
//!    the published crate does, and takes the published crate's own Rust code (`api.rs`), so that
//!    `unicorn-engine` and endgate see the same API as with the published crate.

use std::collections::hash_map::DefaultHasher;
use std::env;
use std::fs;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

use bindgen::callbacks::{EnumVariantValue, ParseCallbacks};
use heck::ToUpperCamelCase;

/// The published crate whose source is patched; `Cargo.toml`'s version must be the same.
const PUBLISHED: &str = "unicorn-engine-sys";
const VERSION: &str = "2.1.5";

fn main() {
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let patches_dir = manifest_dir.join("../patches");
    println!("cargo:rerun-if-changed={}", patches_dir.display());
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=ENDGATE_UNICORN_SOURCE");

    let published = published_source(&out);
    let patches = patch_files(&patches_dir);
    let src = out.join("unicorn");
    prepare_source(&published, &patches, &out, &src);
    build_library(&src);
    generate_bindings(&src, &out);
    write_api(&src, &out);
}

/// Stops the build with one clear line.
fn fail(what: &str) -> ! {
    eprintln!("error: building unicorn with endgate's patches: {what}");
    std::process::exit(1);
}

/// Where the published crate's unpacked source is.
fn published_source(out: &Path) -> PathBuf {
    if let Some(dir) = env::var_os("ENDGATE_UNICORN_SOURCE") {
        return PathBuf::from(dir);
    }
    let probe = out.join("locate-published");
    fs::create_dir_all(probe.join("src")).unwrap_or_else(|e| fail(&format!("{}: {e}", probe.display())));
    let manifest = probe.join("Cargo.toml");
    let text = format!(
        "[package]\nname = \"locate-published-unicorn\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
         [dependencies]\n{PUBLISHED} = {{ version = \"={VERSION}\", default-features = false }}\n\
         [workspace]\n"
    );
    write_if_changed(&manifest, text.as_bytes());
    write_if_changed(&probe.join("src/lib.rs"), b"");
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let metadata = |offline: bool| {
        let mut cmd = Command::new(&cargo);
        cmd.args(["metadata", "--format-version", "1", "--manifest-path"]).arg(&manifest);
        if offline {
            cmd.arg("--offline");
        }
        // The outer build's settings are not the probe's.
        cmd.env_remove("CARGO_TARGET_DIR").env("CARGO_TARGET_DIR", probe.join("target"));
        cmd.output()
    };
    let output = match metadata(false) {
        Ok(o) if o.status.success() => o,
        _ => match metadata(true) {
            Ok(o) if o.status.success() => o,
            Ok(o) => fail(&format!(
                "cargo metadata could not fetch {PUBLISHED} {VERSION}: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            )),
            Err(e) => fail(&format!("running cargo metadata: {e}")),
        },
    };
    let json: serde_json::Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|e| fail(&format!("cargo metadata output: {e}")));
    let packages = json["packages"].as_array().unwrap_or_else(|| fail("cargo metadata lists no packages"));
    for package in packages {
        if package["name"] == PUBLISHED && package["version"] == VERSION {
            if let Some(path) = package["manifest_path"].as_str() {
                return Path::new(path).parent().map(Path::to_path_buf).unwrap_or_else(|| fail("manifest path"));
            }
        }
    }
    fail(&format!("cargo metadata does not list {PUBLISHED} {VERSION}"))
}

/// The patch files, in the order they apply.
fn patch_files(dir: &Path) -> Vec<PathBuf> {
    let mut patches: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| fail(&format!("{}: {e}", dir.display())))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "patch"))
        .collect();
    patches.sort();
    patches
}

/// Makes `src` the published source with every patch applied.
fn prepare_source(published: &Path, patches: &[PathBuf], out: &Path, src: &Path) {
    let mut hasher = DefaultHasher::new();
    published.hash(&mut hasher);
    for patch in patches {
        patch.hash(&mut hasher);
        fs::read(patch).unwrap_or_else(|e| fail(&format!("{}: {e}", patch.display()))).hash(&mut hasher);
    }
    let stamp = format!("{:016x}\n", hasher.finish());
    let stamp_file = out.join("unicorn.stamp");
    if src.is_dir() && fs::read_to_string(&stamp_file).is_ok_and(|s| s == stamp) {
        return;
    }
    let staging = out.join("unicorn-staging");
    if staging.exists() {
        fs::remove_dir_all(&staging).unwrap_or_else(|e| fail(&format!("{}: {e}", staging.display())));
    }
    run(Command::new("cp").arg("-R").arg(published).arg(&staging), "copying the published source");
    for patch in patches {
        let status = Command::new("patch")
            .args(["-p1", "--batch", "--forward", "--silent", "-d"])
            .arg(&staging)
            .arg("-i")
            .arg(patch)
            .status()
            .unwrap_or_else(|e| fail(&format!("running patch (is it installed?): {e}")));
        if !status.success() {
            fail(&format!("{} does not apply to {PUBLISHED} {VERSION}", patch.display()));
        }
    }
    sync_tree(&staging, src);
    fs::remove_dir_all(&staging).unwrap_or_else(|e| fail(&format!("{}: {e}", staging.display())));
    write_if_changed(&stamp_file, stamp.as_bytes());
}

/// Copies every file of `from` whose content differs from its counterpart in `to`.
fn sync_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap_or_else(|e| fail(&format!("{}: {e}", to.display())));
    for entry in fs::read_dir(from).unwrap_or_else(|e| fail(&format!("{}: {e}", from.display()))) {
        let entry = entry.unwrap_or_else(|e| fail(&format!("{}: {e}", from.display())));
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            sync_tree(&source, &target);
        } else {
            let data = fs::read(&source).unwrap_or_else(|e| fail(&format!("{}: {e}", source.display())));
            write_if_changed(&target, &data);
        }
    }
}

fn write_if_changed(path: &Path, data: &[u8]) {
    if fs::read(path).is_ok_and(|old| old == data) {
        return;
    }
    fs::write(path, data).unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
}

fn run(cmd: &mut Command, what: &str) {
    match cmd.status() {
        Ok(s) if s.success() => {}
        Ok(s) => fail(&format!("{what}: {s}")),
        Err(e) => fail(&format!("{what}: {e}")),
    }
}

/// Builds and installs `libunicorn.a` (all selected engines in one archive) and links it.
fn build_library(src: &Path) {
    let archs: Vec<&str> = [
        ("X86", "x86"),
        ("ARM", "arm"),
        ("AARCH64", "aarch64"),
        ("RISCV", "riscv"),
        ("MIPS", "mips"),
        ("SPARC", "sparc"),
        ("M68K", "m68k"),
        ("PPC", "ppc"),
        ("S390X", "s390x"),
        ("TRICORE", "tricore"),
    ]
    .into_iter()
    .filter(|(feature, _)| env::var_os(format!("CARGO_FEATURE_ARCH_{feature}")).is_some())
    .map(|(_, arch)| arch)
    .collect();
    let mut config = cmake::Config::new(src);
    let generator = if Command::new("ninja").arg("--version").output().is_ok() { "Ninja" } else { "Unix Makefiles" };
    config.generator(generator);
    // cmake refuses a build directory made with another generator (ninja installed since the
    // last build): start that directory afresh.
    let build_dir = src.with_file_name("build");
    let cache = fs::read_to_string(build_dir.join("CMakeCache.txt")).unwrap_or_default();
    if cache
        .lines()
        .any(|l| l.starts_with("CMAKE_GENERATOR:INTERNAL=") && l != format!("CMAKE_GENERATOR:INTERNAL={generator}"))
    {
        fs::remove_dir_all(&build_dir).unwrap_or_else(|e| fail(&format!("{}: {e}", build_dir.display())));
    }
    let dst = config
        .profile("Release")
        .define("UNICORN_ARCH", archs.join(";"))
        .define("UNICORN_BUILD_TESTS", "OFF")
        .define("UNICORN_INSTALL", "ON")
        .define("BUILD_SHARED_LIBS", "OFF")
        .define("UNICORN_LEGACY_STATIC_ARCHIVE", "ON")
        .build();
    for lib in ["lib", "lib64"] {
        println!("cargo:rustc-link-search=native={}", dst.join(lib).display());
    }
    println!("cargo:rustc-link-lib=static=unicorn");
    println!("cargo:rustc-link-lib=pthread");
    println!("cargo:rustc-link-lib=m");
}

/// Names bindgen's items as the published crate does (its API is what `unicorn-engine` uses):
/// `uc_err` is `uc_error`; `uc_cpu_<x>` is `<X>CpuModel`; `uc_<x>_reg` is `Register<X>` (upper
/// case, no underscores); `uc_<x>_insn` is `<X>Insn`; a few types by name; enum variants lose
/// their `UC_<ENUM>_` prefix.
#[derive(Debug)]
struct PublishedNames;

/// Types the published crate renames one by one.
const TYPE_NAMES: &[(&str, &str)] = &[
    ("uc_query_type", "Query"),
    ("uc_tlb_type", "TlbType"),
    ("uc_mem_type", "MemType"),
    ("uc_tb", "TranslationBlock"),
    ("uc_arch", "Arch"),
    ("uc_mode", "Mode"),
    ("uc_mem_region", "MemRegion"),
    ("uc_prot", "Prot"),
    ("uc_hook_type", "HookType"),
    ("uc_tlb_entry", "TlbEntry"),
    ("uc_control_type", "ControlType"),
    ("uc_context_content", "ContextMode"),
    ("uc_tcg_op_code", "TcgOpCode"),
    ("uc_tcg_op_flag", "TcgOpFlag"),
];

/// Variant prefixes of the enums whose prefix is not `UC_<ENUM NAME>_`.
const VARIANT_PREFIXES: &[(&str, &str)] = &[
    ("query_type", "UC_QUERY_"),
    ("tlb_type", "UC_TLB_"),
    ("control_type", "UC_CTL_"),
    ("context_content", "UC_CTL_CONTEXT_"),
    ("err", "UC_ERR_"),
    ("mem_type", "UC_MEM_"),
    ("mem_region", "UC_MEM_"),
    ("arch", "UC_ARCH_"),
    ("mode", "UC_MODE_"),
    ("prot", "UC_PROT_"),
    ("hook_type", "UC_HOOK_"),
    ("x86_insn", "UC_X86_INS_"),
    ("tcg_op_code", "UC_TCG_OP_"),
    ("tcg_op_flag", "UC_TCG_OP_FLAG_"),
];

impl ParseCallbacks for PublishedNames {
    fn item_name(&self, name: &str) -> Option<String> {
        if name == "uc_err" {
            return Some("uc_error".into());
        }
        if name.contains("_cpu_") {
            return name.strip_prefix("uc_cpu_").map(|arch| format!("{}CpuModel", arch.to_upper_camel_case()));
        }
        if let Some(reg) = name.strip_prefix("uc_").and_then(|n| n.strip_suffix("_reg")) {
            return Some(format!("Register{}", reg.replace('_', "").to_uppercase()));
        }
        if let Some(insn) = name.strip_prefix("uc_").and_then(|n| n.strip_suffix("_insn")) {
            return Some(format!("{}Insn", insn.to_upper_camel_case()));
        }
        if name.contains("_mode_") {
            return name.strip_prefix("uc_mode_").map(|m| format!("{}Mode", m.to_upper_camel_case()));
        }
        TYPE_NAMES.iter().find(|(c, _)| *c == name).map(|(_, rust)| (*rust).to_string())
    }

    fn enum_variant_name(&self, enum_name: Option<&str>, variant: &str, _value: EnumVariantValue) -> Option<String> {
        let enum_name = enum_name?;
        let short = enum_name.strip_prefix("enum uc_")?;
        let prefix = VARIANT_PREFIXES
            .iter()
            .find(|(e, _)| *e == short)
            .map_or_else(|| format!("UC_{}_", short.to_uppercase()), |(_, p)| (*p).to_string());
        let mut name = variant.strip_prefix(&prefix)?.to_uppercase();
        let numeric = name.parse::<u32>().is_ok();
        if numeric && (enum_name == "enum uc_ppc_reg" || enum_name == "enum uc_mips_reg") {
            name = format!("R{name}");
        }
        if enum_name.contains("cpu") && name.starts_with(|c: char| c.is_ascii_digit()) {
            name = format!("Model_{name}");
        }
        if enum_name == "enum uc_mode" && matches!(name.as_str(), "16" | "32" | "64") {
            name = format!("MODE_{name}");
        }
        Some(name)
    }
}

fn generate_bindings(src: &Path, out: &Path) {
    let header = src.join("include/unicorn/unicorn.h");
    let bitflags = ["uc_hook_type", "uc_tcg_op_flag", "uc_prot", "uc_mode", "uc_context_content", "uc_control_type"];
    bindgen::Builder::default()
        .header(header.to_string_lossy())
        .layout_tests(false)
        .allowlist_type("^uc.*")
        .allowlist_function("^uc_.*")
        .allowlist_var("^uc.*")
        .rustified_enum("^uc.*")
        .prepend_enum_name(false)
        .parse_callbacks(Box::new(PublishedNames))
        .bitfield_enum(bitflags.join("|"))
        .derive_ord(true)
        .derive_eq(true)
        .use_core()
        .generate()
        .unwrap_or_else(|e| fail(&format!("bindgen on {}: {e}", header.display())))
        .write_to_file(out.join("bindings.rs"))
        .unwrap_or_else(|e| fail(&format!("writing bindings: {e}")));
}

/// The published crate's Rust code, made includable: its crate-level attributes are given by
/// `src/lib.rs` instead. Its `mod bindings;` then names `OUT_DIR/bindings.rs`.
fn write_api(src: &Path, out: &Path) {
    let lib = src.join("bindings/rust/sys/src/lib.rs");
    let text = fs::read_to_string(&lib).unwrap_or_else(|e| fail(&format!("{}: {e}", lib.display())));
    let api: String =
        text.lines().filter(|line| !line.trim_start().starts_with("#![")).flat_map(|line| [line, "\n"]).collect();
    write_if_changed(&out.join("api.rs"), api.as_bytes());
}
