//! Derives two things from the sources. The engine identity, [`ENGINE_ID`](crate::ENGINE_ID): a hash
//! of every source file that decides what a run computes, so that stored results made by another
//! engine are never taken for this one's and nobody has to remember to bump a version. And the fields
//! of `TcpOptions` (`src/config.rs`) with their doc comments, read from the struct itself into
//! `$OUT_DIR/tcp_option_fields.rs` for `config::TcpOptions::schema`.
//!
//! Hashed, in order of their path relative to the workspace root (`/` separators): the workspace
//! `Cargo.toml` and `Cargo.lock` (build profile and locked dependency versions), and every file of
//! this crate (`Cargo.toml`, `build.rs`, `src/`) and of the Python bindings (`crates/mpsim-py`:
//! `Cargo.toml`, `src/`), which convert configurations and results. Tests and benches are not
//! hashed: they do not change what a run computes. Each file adds its path, a NUL byte, its length
//! as 8 little-endian bytes and its contents to one SHA-256; the identity is the first 20 hex
//! digits. `tests/test_engine_id.py` recomputes it from the tree.

use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

fn collect(root: &Path, rel: &str, out: &mut Vec<String>) {
    let path = root.join(rel);
    if path.is_file() {
        out.push(rel.to_string());
        return;
    }
    let Ok(entries) = fs::read_dir(&path) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        collect(root, &format!("{rel}/{name}"), out);
    }
}

/// `TcpOptions`'s fields in `src/config.rs`, in order, as Rust source: `[(name, doc), …]`, each doc
/// comment on one line.
fn tcp_option_fields(config_rs: &str) -> String {
    let start = config_rs
        .find("pub struct TcpOptions")
        .expect("src/config.rs defines TcpOptions");
    let body = &config_rs[start..];
    let mut depth = 0;
    let mut end = body.len();
    for (i, c) in body.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 1 => {
                end = i + 1;
                break;
            }
            '}' => depth -= 1,
            _ => {}
        }
    }
    let item: syn::DeriveInput = syn::parse_str(&body[..end]).expect("TcpOptions parses");
    let syn::Data::Struct(data) = item.data else {
        panic!("TcpOptions is a struct")
    };
    let mut out = String::from("&[\n");
    for field in &data.fields {
        let name = field.ident.as_ref().expect("a named field").to_string();
        let mut doc = Vec::new();
        for attr in &field.attrs {
            if let syn::Meta::NameValue(nv) = &attr.meta {
                if let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(text),
                    ..
                }) = &nv.value
                {
                    if nv.path.is_ident("doc") {
                        doc.push(text.value().trim().to_string());
                    }
                }
            }
        }
        out += &format!("    ({name:?}, {:?}),\n", doc.join(" "));
    }
    out + "]\n"
}

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let root = manifest_dir.join("../..");
    let mut files = Vec::new();
    for rel in [
        "Cargo.toml",
        "Cargo.lock",
        "crates/mpsim-core/Cargo.toml",
        "crates/mpsim-core/build.rs",
        "crates/mpsim-core/src",
        "crates/mpsim-py/Cargo.toml",
        "crates/mpsim-py/src",
    ] {
        collect(&root, rel, &mut files);
        println!("cargo:rerun-if-changed={}", root.join(rel).display());
    }
    files.sort();
    let mut hash = Sha256::new();
    for rel in &files {
        let bytes = fs::read(root.join(rel)).expect("a listed source file is readable");
        hash.update(rel.as_bytes());
        hash.update([0u8]);
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(&bytes);
    }
    let hex: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=MPSIM_ENGINE_ID={}", &hex[..20]);

    let config_rs = fs::read_to_string(manifest_dir.join("src/config.rs")).expect("src/config.rs is readable");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    fs::write(out_dir.join("tcp_option_fields.rs"), tcp_option_fields(&config_rs)).expect("OUT_DIR is writable");
}
