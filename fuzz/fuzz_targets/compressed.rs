//! Compressed logs through `reader::open` and the analysis. An input that
//! starts like a gzip or zstd file (the seeds: real files, several frames,
//! skippable frames, concatenated gzip members, files cut short) is read as
//! it is, so that libFuzzer mutates real framing. Any other input is a
//! recipe: a log (a fixture, repeated, or the fuzzer's bytes) split into
//! pieces, each written as a zstd frame (ruzstd's, compressed or stored,
//! with its checksum; or built here, raw and RLE blocks, with any frame
//! header), a gzip member or a skippable frame, then perhaps damaged (cut,
//! a byte flipped, a checksum or a CRC broken, bytes appended or put
//! between frames).
//!
//! Nothing may panic; a decoder's error is the last record; every JSON
//! output parses; and a file whose framing is intact reads exactly as the
//! log it holds (the same records as the plain log).
#![no_main]

use std::io::{Cursor, Read, Write};

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use mcpdbg::pipeline::{self, Options};
use mcpdbg::reader::{self, Body, Format, Record};
use mcpdbg::render::{self, OutputFormat, Style};
use mcpdbg::report::Report;
use mcpdbg::views::stats;

/// Logs a recipe may compress (the fuzzer's bytes are the other choice).
const LOGS: [&str; 5] = [
    include_str!("../../fixtures/sample-session.log"),
    include_str!("../../fixtures/formats/claude-code/host-words.log"),
    include_str!("../../fixtures/formats/cursor/hang.log"),
    include_str!("../../fixtures/formats/gh-aw/clean-v2.log"),
    include_str!("../../fixtures/formats/jetbrains/stray-stdout.log"),
];

/// zstd's frame magic and the first skippable one, little-endian.
const ZSTD: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
const SKIPPABLE: u32 = 0x184D_2A50;
/// The largest block a zstd frame may hold.
const BLOCK_MAX: usize = 128 << 10;
/// The decoded size a recipe may reach (RLE blocks expand a lot).
const PLAIN_MAX: usize = 4 << 20;

fuzz_target!(|data: &[u8]| {
    if data.starts_with(&[0x1f, 0x8b]) || data.get(..4).is_some_and(reader::zstd::is_zstd) {
        read(data.to_vec(), None, None, false);
        return;
    }
    let mut u = Unstructured::new(data);
    let Ok(recipe) = build(&mut u) else {
        return;
    };
    let forced = if u.arbitrary::<bool>().unwrap_or(false) {
        None
    } else {
        let i = u.choose_index(Format::ALL.len()).unwrap_or(0);
        Some(Format::ALL[i])
    };
    let read_ahead = u.arbitrary::<bool>().unwrap_or(false);
    let plain = recipe.intact.then_some(recipe.plain);
    read(recipe.file, plain, forced, read_ahead);
});

/// A compressed file, what it holds, and whether its framing is intact
/// (then it must read as `plain`).
struct Recipe {
    file: Vec<u8>,
    plain: Vec<u8>,
    intact: bool,
}

/// One piece of the file: where it is, and what checksum it ends with.
struct Piece {
    start: usize,
    end: usize,
    check: Check,
}

#[derive(Clone, Copy, PartialEq)]
enum Check {
    None,
    /// A zstd frame's last four bytes (XXH64's low half).
    Zstd,
    /// A gzip member's CRC-32 and size, its last eight bytes.
    Gzip,
}

#[derive(Clone, Copy, PartialEq)]
enum Container {
    Gzip,
    Zstd,
}

fn build(u: &mut Unstructured) -> Result<Recipe> {
    let log: Vec<u8> = if u.arbitrary::<bool>()? {
        let text = LOGS[u.choose_index(LOGS.len())?];
        text.repeat(u.int_in_range(1..=48usize)?).into_bytes()
    } else {
        let n = u.arbitrary_len::<u8>()?;
        u.bytes(n)?.to_vec()
    };
    let count = u.int_in_range(1..=6usize)?;
    // Where the log is split: `count` pieces, some perhaps empty.
    let mut cuts: Vec<usize> = (1..count)
        .map(|_| u.int_in_range(0..=log.len()))
        .collect::<Result<_>>()?;
    cuts.sort_unstable();
    let mut file = Vec::new();
    let mut plain = Vec::new();
    let mut pieces = Vec::new();
    let mut intact = true;
    let mut containers = Vec::new();
    let mut from = 0;
    for to in cuts.into_iter().chain([log.len()]) {
        let part = &log[from..to];
        from = to;
        if u.ratio(1u8, 5)? {
            // A skippable frame first (pzstd's, or a producer's metadata).
            let start = file.len();
            intact &= skippable(u, &mut file)?;
            containers.push(Container::Zstd);
            pieces.push(Piece {
                start,
                end: file.len(),
                check: Check::None,
            });
        }
        let start = file.len();
        let (container, check) = match u.int_in_range(0..=4u8)? {
            0 => {
                let level = ruzstd::encoding::CompressionLevel::Fastest;
                file.extend(ruzstd::encoding::compress_to_vec(part, level));
                plain.extend_from_slice(part);
                (Container::Zstd, Check::Zstd)
            }
            1 => {
                let level = ruzstd::encoding::CompressionLevel::Uncompressed;
                file.extend(ruzstd::encoding::compress_to_vec(part, level));
                plain.extend_from_slice(part);
                (Container::Zstd, Check::Zstd)
            }
            2 => {
                intact &= zstd_frame(u, part, &mut file, &mut plain)?;
                (Container::Zstd, Check::None)
            }
            _ => {
                gzip_member(u, part, &mut file)?;
                plain.extend_from_slice(part);
                (Container::Gzip, Check::Gzip)
            }
        };
        containers.push(container);
        pieces.push(Piece {
            start,
            end: file.len(),
            check,
        });
    }
    // One kind of container: gzip's decoder stops at a zstd frame, and
    // zstd's at a gzip member.
    intact &= containers.windows(2).all(|w| w[0] == w[1]);
    if u.arbitrary::<bool>()? {
        intact &= damage(u, &mut file, &pieces)?;
    }
    Ok(Recipe {
        file,
        plain,
        intact,
    })
}

/// A skippable frame, its length true or not; true when it is.
fn skippable(u: &mut Unstructured, file: &mut Vec<u8>) -> Result<bool> {
    let magic = SKIPPABLE + u32::from(u.int_in_range(0..=15u8)?);
    let n = u.int_in_range(0..=64usize)?;
    let content = u.bytes(n)?.to_vec();
    let honest = u.ratio(7u8, 8)?;
    let length = if honest {
        content.len() as u32
    } else {
        u.arbitrary::<u32>()?
    };
    file.extend(magic.to_le_bytes());
    file.extend(length.to_le_bytes());
    file.extend(&content);
    Ok(honest || length as usize == content.len())
}

/// A zstd frame written here: raw blocks of `part` (and RLE blocks of runs
/// the recipe adds, which go into `plain` too), under a frame header of any
/// shape. True when the frame is valid: the header honest, no dictionary,
/// no checksum (this target computes none), blocks within the window.
fn zstd_frame(
    u: &mut Unstructured,
    part: &[u8],
    file: &mut Vec<u8>,
    plain: &mut Vec<u8>,
) -> Result<bool> {
    // The content: `part`'s bytes in raw blocks, runs in RLE blocks.
    let block = u.int_in_range(1..=BLOCK_MAX)?;
    let mut blocks: Vec<(u8, Vec<u8>, usize)> = Vec::new(); // (type, bytes, size)
    for chunk in part.chunks(block) {
        blocks.push((0, chunk.to_vec(), chunk.len()));
    }
    let mut content = part.to_vec();
    // At most 8 runs (`ratio` says yes once the input is used up).
    for _ in 0..8 {
        if u.is_empty() || !u.ratio(1u8, 4)? || plain.len() + content.len() >= PLAIN_MAX {
            break;
        }
        let byte = u.arbitrary::<u8>()?;
        let run = u.int_in_range(0..=block)?;
        blocks.push((1, vec![byte], run));
        content.extend(std::iter::repeat_n(byte, run));
    }
    let size = content.len() as u64;
    let mut valid = true;
    // Frame header: single segment (the content size is the window) or a
    // window descriptor; the content size in 0, 1, 2, 4 or 8 bytes; the
    // checksum and dictionary flags.
    let single = u.arbitrary::<bool>()?;
    let mut fcs_flag = u.int_in_range(0..=3u8)?;
    if single && fcs_flag == 0 && size > 255 {
        fcs_flag = if size <= 0xFFFF + 256 { 1 } else { 2 };
    }
    let checksum = u.ratio(1u8, 8)?;
    let dictionary = if u.ratio(1u8, 16)? {
        u.int_in_range(1..=3u8)?
    } else {
        0
    };
    valid &= !checksum && dictionary == 0;
    let descriptor =
        (fcs_flag << 6) | (u8::from(single) << 5) | (u8::from(checksum) << 2) | dictionary;
    file.extend(ZSTD);
    file.push(descriptor);
    if !single {
        // The smallest window that holds a block, or any.
        let needed = blocks.iter().map(|b| b.2).max().unwrap_or(0).max(1 << 10);
        let exponent = if u.ratio(7u8, 8)? {
            (needed.next_power_of_two().trailing_zeros() - 10) as u8
        } else {
            u.int_in_range(0..=31u8)?
        };
        let window = 1u64 << (10 + u32::from(exponent));
        valid &= window >= needed as u64 && window <= 128 << 20;
        file.push(exponent << 3);
    }
    let dict_len = [0, 1, 2, 4][usize::from(dictionary)];
    file.extend(std::iter::repeat_n(7u8, dict_len));
    let fcs_len = match fcs_flag {
        0 => usize::from(single),
        1 => 2,
        2 => 4,
        _ => 8,
    };
    if fcs_len > 0 {
        let honest = u.ratio(7u8, 8)?;
        let mut stored = if honest { size } else { u.arbitrary::<u64>()? };
        if fcs_len == 2 {
            stored = stored.wrapping_sub(256);
        }
        let bytes = stored.to_le_bytes();
        file.extend(&bytes[..fcs_len]);
        let read = if fcs_len == 2 {
            u64::from(u16::from_le_bytes([bytes[0], bytes[1]])) + 256
        } else {
            let mut all = [0u8; 8];
            all[..fcs_len].copy_from_slice(&bytes[..fcs_len]);
            u64::from_le_bytes(all)
        };
        valid &= read == size;
    } else if single {
        valid = false;
    }
    if single {
        valid &= size <= 128 << 20;
    }
    // Blocks; the last one says so (an empty raw block when there is none).
    if blocks.is_empty() {
        blocks.push((0, Vec::new(), 0));
    }
    let last = blocks.len() - 1;
    for (i, (kind, bytes, size)) in blocks.iter().enumerate() {
        let header = (*size as u32) << 3 | u32::from(*kind) << 1 | u32::from(i == last);
        file.extend(&header.to_le_bytes()[..3]);
        file.extend(bytes);
    }
    if checksum {
        file.extend(u.arbitrary::<[u8; 4]>()?);
    }
    plain.extend(content);
    Ok(valid)
}

/// A gzip member of `part`, at any level, with or without the optional
/// header fields.
fn gzip_member(u: &mut Unstructured, part: &[u8], file: &mut Vec<u8>) -> Result<()> {
    let mut builder = flate2::GzBuilder::new().mtime(u.arbitrary()?);
    let field = |u: &mut Unstructured| -> Result<Vec<u8>> {
        // The name and the comment end at a NUL: none inside.
        let n = u.int_in_range(0..=32usize)?;
        Ok(u.bytes(n)?.iter().map(|&b| b.max(1)).collect())
    };
    if u.ratio(1u8, 4)? {
        builder = builder.filename(field(u)?);
    }
    if u.ratio(1u8, 4)? {
        builder = builder.comment(field(u)?);
    }
    if u.ratio(1u8, 4)? {
        builder = builder.extra(field(u)?);
    }
    let level = flate2::Compression::new(u.int_in_range(0..=9u32)?);
    let mut encoder = builder.write(Vec::new(), level);
    encoder.write_all(part).expect("in memory");
    file.extend(encoder.finish().expect("in memory"));
    Ok(())
}

/// Damages the file; true when it is still intact (nothing was changed).
fn damage(u: &mut Unstructured, file: &mut Vec<u8>, pieces: &[Piece]) -> Result<bool> {
    if file.is_empty() {
        return Ok(true);
    }
    match u.int_in_range(0..=4u8)? {
        // Cut short (a log still being written, a copy interrupted).
        0 => {
            let at = u.int_in_range(0..=file.len() - 1)?;
            file.truncate(at);
        }
        // A byte flipped anywhere.
        1 => {
            let at = u.choose_index(file.len())?;
            file[at] ^= u.int_in_range(1..=255u8)?;
        }
        // A checksum or a CRC broken: the content decodes, then does not
        // match.
        2 => {
            let checked: Vec<&Piece> = pieces.iter().filter(|p| p.check != Check::None).collect();
            let Some(piece) = checked.get(u.choose_index(checked.len().max(1))?) else {
                file[0] ^= 0x80;
                return Ok(false);
            };
            let back = match piece.check {
                Check::Zstd => u.int_in_range(1..=4usize)?,
                _ => u.int_in_range(1..=8usize)?,
            };
            let at = piece.end.saturating_sub(back).max(piece.start);
            file[at] ^= u.int_in_range(1..=255u8)?;
        }
        // Bytes after the last frame (zeros, as a preallocated file has).
        3 => {
            let n = u.int_in_range(1..=64usize)?;
            if u.arbitrary::<bool>()? {
                file.extend(std::iter::repeat_n(0u8, n));
            } else {
                file.extend(u.bytes(n.min(u.len()))?);
                if u.is_empty() {
                    file.push(0);
                }
            }
        }
        // Bytes between two frames.
        _ => {
            let piece = &pieces[u.choose_index(pieces.len())?];
            let n = u.int_in_range(1..=16usize)?;
            let junk: Vec<u8> = (0..n).map(|_| u.arbitrary::<u8>()).collect::<Result<_>>()?;
            file.splice(piece.end..piece.end, junk);
        }
    }
    Ok(false)
}

/// Reads `file` through the readers and the analysis; with `plain`, it
/// must read as that log.
fn read(file: Vec<u8>, plain: Option<Vec<u8>>, forced: Option<Format>, read_ahead: bool) {
    let got = records(&file, forced);
    if let Some(last) = got
        .iter()
        .rposition(|r| matches!(r.body, Body::Undecodable { .. }))
    {
        assert_eq!(
            last,
            got.len() - 1,
            "the decoder's error is not the last record"
        );
        assert_eq!(
            got.iter()
                .filter(|r| matches!(r.body, Body::Undecodable { .. }))
                .count(),
            1,
            "the decoder's error is reported twice"
        );
    }
    if let Some(plain) = plain {
        // The plain log itself read as a compressed file: nothing to compare.
        let sniffed =
            plain.starts_with(&[0x1f, 0x8b]) || plain.get(..4).is_some_and(reader::zstd::is_zstd);
        if !sniffed {
            let expected = records(&plain, forced);
            assert!(
                got == expected,
                "an intact compressed file reads unlike its log: {} records, {} expected",
                got.len(),
                expected.len()
            );
        }
    }
    let options = Options {
        format: forced,
        read_ahead,
        ..Options::default()
    };
    let report = pipeline::check(
        "fuzz.log.zst",
        Box::new(Cursor::new(file.clone())),
        &options,
    )
    .expect("in-memory reads succeed");
    let report = Report {
        files: vec![report],
    };
    let mut out = Vec::new();
    render::render(&report, OutputFormat::Json, Style::default(), &mut out).expect("render");
    json(&out);
    let mut all = stats::Stats::default();
    stats::collect(
        &mut all,
        "fuzz.log.zst",
        Box::new(Cursor::new(file)),
        forced,
        &mut None,
    )
    .expect("stats");
    let mut doc = Vec::new();
    render::stats_json::render(&all, &mut doc).expect("stats json");
    json(&doc);
}

/// Every record `reader::open` gives for `bytes` (only in-memory reads,
/// which do not fail).
fn records(bytes: &[u8], forced: Option<Format>) -> Vec<Record> {
    let input: Box<dyn Read> = Box::new(Cursor::new(bytes.to_vec()));
    let opened = reader::open(input, forced).expect("in-memory reads succeed");
    opened
        .records
        .map(|r| r.expect("in-memory reads succeed"))
        .collect()
}

/// A JSON output parses (deeper than serde_json reads by default is valid).
fn json(out: &[u8]) {
    match serde_json::from_slice::<serde::de::IgnoredAny>(out) {
        Ok(_) => {}
        Err(e) if e.to_string().contains("recursion limit") => {}
        Err(e) => panic!(
            "invalid JSON output ({e}): {}",
            String::from_utf8_lossy(&out[..out.len().min(2000)])
        ),
    }
}
