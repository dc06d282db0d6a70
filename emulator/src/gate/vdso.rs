//! The vDSO image: a small shared-object ELF file built at start for the guest's arch, with
//! the `object` crate's ELF writer.
//!
//! What a libc or runtime needs to use it (glibc `setup_vdso`/`dl_vdso_vsym`, musl
//! `__vdsosym`, Go's `vdsoParseSymbols`): one `PT_LOAD` and a `PT_DYNAMIC`, a SysV `DT_HASH`
//! table (musl reads only that) and, where the arch's kernel has one, a `DT_GNU_HASH` table
//! (glibc and Go prefer it; Go reads `DT_HASH` as 4-byte words, wrong on s390x, so it needs
//! this one there) over `DT_SYMTAB`/`DT_STRTAB`, and
//! symbol versions (`DT_VERSYM`, `DT_VERDEF`) whose names match the ones it asks for. Each
//! function is a global `STT_FUNC` symbol in `.text`; aliases share a slot.
//!
//! The image is linked at address 0 (file offset = virtual address) and mapped whole, so a
//! libc's load bias is the mapping's address.
//!
//! ```text
//! ELF header, program headers, .hash, .gnu.hash, .dynsym, .dynstr, .gnu.version, .gnu.version_d,
//! .dynamic, .text (16-byte slots, then the landing: trap instruction + return),
//! .shstrtab, section headers
//! ```

use object::elf;
use object::write::elf::{FileHeader, ProgramHeader, SectionHeader, Sym, Verdef, Writer};
use object::Endianness;

use super::{slot_entries, Entry, VdsoSpec, SLOT};
use crate::abi::{low32, u64_to_usize};
use crate::mm::Endian;

/// A built image and where its code parts are, as offsets from its start.
pub struct Image {
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// Offset of the first slot.
    pub slots: u64,
    /// Offset of the landing (the return instruction after the trap instruction).
    pub landing: u64,
}

/// Builds the image for `spec` (`machine`: ELF `e_machine`; `is_64`: ELFCLASS64).
pub fn build(spec: &VdsoSpec, machine: u16, is_64: bool, endian: Endian) -> Image {
    let endianness = match endian {
        Endian::Little => Endianness::Little,
        Endian::Big => Endianness::Big,
    };
    let entries = slot_entries(spec);
    let slot_of = |e| entries.iter().position(|x| *x == e).unwrap_or(0) as u64;
    let slots_len = entries.len() as u64 * SLOT;
    let text_len = slots_len + (spec.trap.len() + spec.ret.len()) as u64 + 8;

    let mut bytes = Vec::new();
    let mut w = Writer::new(endianness, is_64, &mut bytes);

    // Strings first, then section and symbol indices, then file ranges (the writer's order).
    let soname = w.add_dynamic_string(spec.soname.as_bytes());
    let versions: Vec<_> = spec.versions.iter().map(|v| w.add_dynamic_string(v.0.as_bytes())).collect();
    let symbols = spec.symbols();
    let names: Vec<_> = symbols.iter().map(|s| w.add_dynamic_string(s.0.as_bytes())).collect();

    w.reserve_null_section_index();
    let hash_name = w.add_section_name(b".hash");
    let _hash_index = w.reserve_section_index();
    if spec.gnu_hash {
        w.reserve_gnu_hash_section_index();
    }
    let dynsym_index = w.reserve_dynsym_section_index();
    let _dynstr_index = w.reserve_dynstr_section_index();
    let _versym_index = w.reserve_gnu_versym_section_index();
    let _verdef_index = w.reserve_gnu_verdef_section_index();
    let _dynamic_index = w.reserve_dynamic_section_index();
    let text_name = w.add_section_name(b".text");
    let text_index = w.reserve_section_index();
    w.reserve_shstrtab_section_index();

    w.reserve_null_dynamic_symbol_index();
    for _ in &symbols {
        w.reserve_dynamic_symbol_index();
    }
    let nsyms = w.dynamic_symbol_count();
    // One bucket: every name on one chain. A handful of names need no more, and a lookup
    // that hashes a name wrongly (Go 1.19's arm64 runtime keys `__kernel_clock_gettime` with
    // the hashes of `__vdso_clock_gettime`) still walks the chain and compares names.
    let nbuckets = 1;
    let ndyn = if spec.gnu_hash { 11 } else { 10 };

    w.reserve_file_header();
    w.reserve_program_headers(2);
    let hash_len = (2 + nbuckets as usize + nsyms as usize) * spec.hash_word;
    let hash_off = w.reserve(hash_len, spec.hash_word);
    // One bucket here too (no sorting of the symbols by bucket needed).
    let gnu_hash_off = if spec.gnu_hash { w.reserve_gnu_hash(1, 1, nsyms - 1) } else { 0 };
    let dynsym_off = w.reserve_dynsym();
    let dynstr_off = w.reserve_dynstr();
    let dynstr_len = w.dynstr_len();
    let versym_off = w.reserve_gnu_versym();
    let verdef_off = w.reserve_gnu_verdef(1 + spec.versions.len(), 1 + spec.versions.len());
    let dynamic_off = w.reserve_dynamic(ndyn);
    let text_off = w.reserve(u64_to_usize(text_len), u64_to_usize(SLOT));
    w.reserve_shstrtab();
    w.reserve_section_headers();
    let file_len = w.reserved_len() as u64;
    let dynamic_len = (ndyn * if is_64 { 16 } else { 8 }) as u64;

    let _ = w.write_file_header(&FileHeader {
        os_abi: elf::ELFOSABI_SYSV,
        abi_version: 0,
        e_type: elf::ET_DYN,
        e_machine: machine,
        e_entry: 0,
        e_flags: spec.e_flags,
    });
    w.write_align_program_headers();
    w.write_program_header(&ProgramHeader {
        p_type: elf::PT_LOAD,
        p_flags: elf::PF_R | elf::PF_X,
        p_offset: 0,
        p_vaddr: 0,
        p_paddr: 0,
        p_filesz: file_len,
        p_memsz: file_len,
        p_align: crate::mm::PAGE_SIZE,
    });
    w.write_program_header(&ProgramHeader {
        p_type: elf::PT_DYNAMIC,
        p_flags: elf::PF_R,
        p_offset: dynamic_off as u64,
        p_vaddr: dynamic_off as u64,
        p_paddr: dynamic_off as u64,
        p_filesz: dynamic_len,
        p_memsz: dynamic_len,
        p_align: if is_64 { 8 } else { 4 },
    });

    w.write_align(spec.hash_word);
    w.write(&sysv_hash(&symbols, spec.hash_word, nbuckets, endian));
    if spec.gnu_hash {
        w.write_gnu_hash(1, 6, 1, 1, nsyms - 1, |i| elf::gnu_hash(symbols[i as usize].0.as_bytes()));
    }
    w.write_null_dynamic_symbol();
    for (i, s) in symbols.iter().enumerate() {
        w.write_dynamic_symbol(&Sym {
            name: Some(names[i]),
            section: Some(text_index),
            st_info: (elf::STB_GLOBAL << 4) | elf::STT_FUNC,
            st_other: elf::STV_DEFAULT,
            st_shndx: 0,
            st_value: text_off as u64 + slot_of(s.2) * SLOT,
            st_size: spec.ret.len() as u64,
        });
    }
    w.write_dynstr();
    w.write_null_gnu_versym();
    for s in &symbols {
        w.write_gnu_versym(2 + u16::try_from(s.1).expect("a handful of vDSO versions"));
    }
    w.write_align_gnu_verdef();
    w.write_gnu_verdef(&Verdef {
        version: elf::VER_DEF_CURRENT,
        flags: elf::VER_FLG_BASE,
        index: 1,
        aux_count: 1,
        name: soname,
    });
    for (i, v) in versions.iter().enumerate() {
        w.write_gnu_verdef(&Verdef {
            version: elf::VER_DEF_CURRENT,
            flags: 0,
            index: 2 + u16::try_from(i).expect("a handful of vDSO versions"),
            aux_count: 1,
            name: *v,
        });
    }
    w.write_align_dynamic();
    w.write_dynamic_string(elf::DT_SONAME, soname);
    w.write_dynamic(elf::DT_HASH, hash_off as u64);
    if spec.gnu_hash {
        w.write_dynamic(elf::DT_GNU_HASH, gnu_hash_off as u64);
    }
    w.write_dynamic(elf::DT_SYMTAB, dynsym_off as u64);
    w.write_dynamic(elf::DT_STRTAB, dynstr_off as u64);
    w.write_dynamic(elf::DT_STRSZ, dynstr_len as u64);
    w.write_dynamic(elf::DT_SYMENT, if is_64 { 24 } else { 16 });
    w.write_dynamic(elf::DT_VERSYM, versym_off as u64);
    w.write_dynamic(elf::DT_VERDEF, verdef_off as u64);
    w.write_dynamic(elf::DT_VERDEFNUM, 1 + spec.versions.len() as u64);
    w.write_dynamic(elf::DT_NULL, 0);

    w.write_align(u64_to_usize(SLOT));
    let mut text = vec![0u8; u64_to_usize(text_len)];
    for i in 0..entries.len() {
        let at = i * u64_to_usize(SLOT);
        text[at..at + spec.ret.len()].copy_from_slice(spec.ret);
    }
    let trap_at = u64_to_usize(slots_len) + 8;
    text[trap_at..trap_at + spec.trap.len()].copy_from_slice(spec.trap);
    let landing = trap_at + spec.trap.len();
    text[landing..landing + spec.ret.len()].copy_from_slice(spec.ret);
    w.write(&text);
    w.write_shstrtab();

    w.write_null_section_header();
    w.write_section_header(&SectionHeader {
        name: Some(hash_name),
        sh_type: elf::SHT_HASH,
        sh_flags: u64::from(elf::SHF_ALLOC),
        sh_addr: hash_off as u64,
        sh_offset: hash_off as u64,
        sh_size: hash_len as u64,
        sh_link: dynsym_index.0,
        sh_info: 0,
        sh_addralign: spec.hash_word as u64,
        sh_entsize: spec.hash_word as u64,
    });
    if spec.gnu_hash {
        w.write_gnu_hash_section_header(gnu_hash_off as u64);
    }
    w.write_dynsym_section_header(dynsym_off as u64, 1);
    w.write_dynstr_section_header(dynstr_off as u64);
    w.write_gnu_versym_section_header(versym_off as u64);
    w.write_gnu_verdef_section_header(verdef_off as u64);
    w.write_dynamic_section_header(dynamic_off as u64);
    w.write_section_header(&SectionHeader {
        name: Some(text_name),
        sh_type: elf::SHT_PROGBITS,
        sh_flags: u64::from(elf::SHF_ALLOC | elf::SHF_EXECINSTR),
        sh_addr: text_off as u64,
        sh_offset: text_off as u64,
        sh_size: text_len,
        sh_link: 0,
        sh_info: 0,
        sh_addralign: SLOT,
        sh_entsize: 0,
    });
    w.write_shstrtab_section_header();

    Image { bytes, slots: text_off as u64, landing: text_off as u64 + landing as u64 }
}

/// The SysV `.hash` table (gABI "Hash Table"): `nbucket`, `nchain`, the buckets, the chains,
/// in words of `hash_word` bytes. Dynamic symbol `i + 1` is `symbols[i]`.
fn sysv_hash(symbols: &[(String, usize, Entry)], hash_word: usize, nbuckets: u32, endian: Endian) -> Vec<u8> {
    let nsyms = symbols.len() + 1;
    let mut buckets = vec![0u64; nbuckets as usize];
    let mut chains = vec![0u64; nsyms];
    for (i, s) in symbols.iter().enumerate() {
        let b = (elf::hash(s.0.as_bytes()) % nbuckets) as usize;
        chains[i + 1] = buckets[b];
        buckets[b] = i as u64 + 1;
    }
    let words = [u64::from(nbuckets), nsyms as u64].into_iter().chain(buckets).chain(chains);
    let mut out = Vec::new();
    for v in words {
        match (hash_word, endian) {
            (8, Endian::Little) => out.extend_from_slice(&v.to_le_bytes()),
            (8, Endian::Big) => out.extend_from_slice(&v.to_be_bytes()),
            (_, Endian::Little) => out.extend_from_slice(&low32(v).to_le_bytes()),
            (_, Endian::Big) => out.extend_from_slice(&low32(v).to_be_bytes()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use goblin::elf::Elf;

    static SPEC: VdsoSpec = VdsoSpec {
        soname: "linux-vdso.so.1",
        e_flags: 0,
        versions: &[("LINUX_2.6", &[Entry::ClockGettime, Entry::Syscall])],
        prefix: "__vdso_",
        plain_aliases: true,
        ret: &[0xc3],
        trap: &[0x0f, 0x05],
        abi: crate::gate::CallAbi::Regs { args: [0, 0], ret: 0 },
        pc: 0,
        at_sysinfo: false,
        hash_word: 4,
        gnu_hash: true,
    };

    #[test]
    fn goblin_reads_symbols_versions_and_dynamic() {
        for (is_64, endian) in [(true, Endian::Little), (false, Endian::Little), (true, Endian::Big)] {
            let img = build(&SPEC, 62, is_64, endian);
            let e = Elf::parse(&img.bytes).expect("valid ELF");
            assert_eq!(e.header.e_type, elf::ET_DYN);
            let dynamic = e.dynamic.as_ref().expect("PT_DYNAMIC");
            assert!(dynamic.info.hash.is_some() && dynamic.info.gnu_hash.is_some() == SPEC.gnu_hash);
            assert!(dynamic.info.versym != 0 && dynamic.info.verdef != 0);
            let sym = |n: &str| e.dynsyms.iter().find(|s| e.dynstrtab.get_at(s.st_name) == Some(n)).expect(n);
            let a = sym("__vdso_clock_gettime");
            assert_eq!(a.st_value, sym("clock_gettime").st_value, "aliases share a slot");
            assert_eq!(a.st_value, img.slots);
            assert_eq!(sym("__kernel_vsyscall").st_value, img.slots + SLOT);
            assert!(a.is_function());
            let verdef = e.verdef.as_ref().expect("verdef");
            let names: Vec<_> = verdef
                .iter()
                .filter_map(|d| d.iter().next().map(|aux| e.dynstrtab.get_at(aux.vda_name).unwrap_or("").to_string()))
                .collect();
            assert_eq!(names, ["linux-vdso.so.1", "LINUX_2.6"]);
            let versym = e.versym.as_ref().expect("versym");
            assert_eq!(versym.get_at(1).map(|v| v.vs_val), Some(2));
            assert_eq!(&img.bytes[u64_to_usize(img.landing) - 2..u64_to_usize(img.landing) + 1], &[0x0f, 0x05, 0xc3]);
        }
    }
}
