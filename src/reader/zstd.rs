//! zstd input (RFC 8878): every frame to the end of the file, skippable
//! frames (pzstd's) passed over, a window limit checked before the decoder
//! allocates it, and what a cut frame decoded kept.

use std::io::{self, Read};

use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};

/// The largest window a frame may ask for: 128 MiB, zstd's own default
/// (`--long` up to 27). A frame asking for more is refused (the decoder
/// would hold the whole window in memory).
pub const MAX_WINDOW: u64 = 128 << 20;

const MAGIC: u32 = 0xFD2F_B528;

/// Whether `magic` (the first four bytes) starts a zstd frame or a
/// skippable frame.
pub fn is_zstd(magic: &[u8]) -> bool {
    match <[u8; 4]>::try_from(magic) {
        Ok(m) => {
            let m = u32::from_le_bytes(m);
            m == MAGIC || is_skippable(m)
        }
        Err(_) => false,
    }
}

fn is_skippable(magic: u32) -> bool {
    (0x184D_2A50..=0x184D_2A5F).contains(&magic)
}

enum State {
    /// Between frames: the next bytes are a frame's magic number, or the end.
    Header,
    /// Decoding a frame.
    Frame,
    /// The input failed: what is decoded is handed out, then this error.
    Failed(String),
    Done,
}

/// A zstd stream of any number of frames, decoded as it is read.
pub struct Zstd<R> {
    source: R,
    decoder: FrameDecoder,
    state: State,
    /// Frames started (for the error's words).
    frames: u64,
}

impl<R: Read> Zstd<R> {
    pub fn new(source: R) -> Zstd<R> {
        Zstd {
            source,
            decoder: FrameDecoder::new(),
            state: State::Header,
            frames: 0,
        }
    }

    /// Reads up to `buf.len()` bytes, fewer only at the end of the input.
    fn fill(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            match self.source.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(n)
    }

    /// Reads the next frame's header and starts decoding it. `Ok(false)` at
    /// the end of the input.
    fn start_frame(&mut self) -> Result<bool, String> {
        // A loop, not a call per skippable frame: 50,000 empty ones (400 KB)
        // overflowed the stack.
        loop {
            let mut magic = [0u8; 4];
            let got = self.fill(&mut magic).map_err(|e| e.to_string())?;
            if got == 0 {
                return Ok(false);
            }
            let which = self.frames + 1;
            if got < 4 {
                return Err(format!("zstd input cut inside the header of frame {which}"));
            }
            let magic_num = u32::from_le_bytes(magic);
            if is_skippable(magic_num) {
                let mut size = [0u8; 4];
                if self.fill(&mut size).map_err(|e| e.to_string())? < 4 {
                    return Err("zstd input cut inside a skippable frame".into());
                }
                let size = u64::from(u32::from_le_bytes(size));
                let skipped = io::copy(&mut (&mut self.source).take(size), &mut io::sink())
                    .map_err(|e| e.to_string())?;
                if skipped < size {
                    return Err("zstd input cut inside a skippable frame".into());
                }
                continue;
            }
            if magic_num != MAGIC {
                return Err(format!(
                    "bytes after zstd frame {} are not a zstd frame",
                    self.frames
                ));
            }
            // Frame header descriptor, then the window descriptor, the
            // dictionary id and the content size, as the descriptor says.
            let mut header = magic.to_vec();
            let mut fhd = [0u8; 1];
            if self.fill(&mut fhd).map_err(|e| e.to_string())? < 1 {
                return Err(format!("zstd input cut inside the header of frame {which}"));
            }
            let fhd = fhd[0];
            header.push(fhd);
            let single_segment = fhd & 0x20 != 0;
            let dict_len = [0, 1, 2, 4][usize::from(fhd & 3)];
            let fcs_len = match fhd >> 6 {
                0 => usize::from(single_segment),
                1 => 2,
                2 => 4,
                _ => 8,
            };
            let rest = usize::from(!single_segment) + dict_len + fcs_len;
            let mut more = vec![0u8; rest];
            if self.fill(&mut more).map_err(|e| e.to_string())? < rest {
                return Err(format!("zstd input cut inside the header of frame {which}"));
            }
            header.extend_from_slice(&more);
            let window = if single_segment {
                let fcs = &more[dict_len..];
                let mut bytes = [0u8; 8];
                bytes[..fcs.len()].copy_from_slice(fcs);
                let size = u64::from_le_bytes(bytes);
                if fcs.len() == 2 { size + 256 } else { size }
            } else {
                let descriptor = more[0];
                let base = 1u64 << (10 + u32::from(descriptor >> 3));
                base + base / 8 * u64::from(descriptor & 7)
            };
            if window > MAX_WINDOW {
                return Err(format!(
                    "zstd frame {which} needs a window of {} MiB, over mcpdbg's limit of {} MiB (a file made with `zstd --long`): decompress it with `zstd -d --long=31` and check that",
                    window.div_ceil(1 << 20),
                    MAX_WINDOW >> 20
                ));
            }
            self.decoder
                .init(io::Cursor::new(header))
                .map_err(|e| format!("zstd frame {which}: {e}"))?;
            self.frames += 1;
            return Ok(true);
        }
    }
}

impl<R: Read> Read for Zstd<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            match &self.state {
                State::Done => return Ok(0),
                State::Header => match self.start_frame() {
                    Ok(true) => self.state = State::Frame,
                    Ok(false) => self.state = State::Done,
                    Err(e) => self.state = State::Failed(e),
                },
                State::Failed(e) => {
                    let n = self.decoder.read(buf)?;
                    if n > 0 {
                        return Ok(n);
                    }
                    let e = io::Error::other(e.clone());
                    self.state = State::Done;
                    return Err(e);
                }
                State::Frame => {
                    if self.decoder.is_finished() {
                        let n = self.decoder.read(buf)?;
                        if n > 0 {
                            return Ok(n);
                        }
                        // Every byte of the frame is out: its content
                        // checksum, when it has one, says whether they are
                        // the bytes that were compressed (as gzip's CRC).
                        let stored = self.decoder.get_checksum_from_data();
                        let computed = self.decoder.get_calculated_checksum();
                        self.state = match (stored, computed) {
                            (Some(stored), Some(computed)) if stored != computed => {
                                State::Failed(format!(
                                    "zstd frame {}: content checksum mismatch (stored {stored:08x}, computed {computed:08x}): the data is damaged",
                                    self.frames
                                ))
                            }
                            _ => State::Header,
                        };
                        continue;
                    }
                    let ready = self.decoder.can_collect();
                    if ready >= buf.len() {
                        return self.decoder.read(buf);
                    }
                    let wanted = BlockDecodingStrategy::UptoBytes(buf.len() - ready);
                    if let Err(e) = self.decoder.decode_blocks(&mut self.source, wanted) {
                        // A cut or damaged block: end the frame with an empty
                        // last block (and a checksum, unchecked) so that the
                        // window the decoder keeps is handed out too.
                        let end = [1u8, 0, 0, 0, 0, 0, 0];
                        let _ = self
                            .decoder
                            .decode_blocks(&end[..], BlockDecodingStrategy::UptoBlocks(1));
                        self.state = State::Failed(format!("zstd frame {}: {e}", self.frames));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compress(data: &[u8]) -> Vec<u8> {
        ruzstd::encoding::compress_to_vec(data, ruzstd::encoding::CompressionLevel::Fastest)
    }

    fn lines(from: u32, to: u32) -> Vec<u8> {
        (from..to)
            .flat_map(|i| format!("line {i} of a log\n").into_bytes())
            .collect()
    }

    fn decode(input: Vec<u8>) -> (Vec<u8>, Option<String>) {
        let mut out = Vec::new();
        let mut z = Zstd::new(io::Cursor::new(input));
        let mut buf = [0u8; 4096];
        loop {
            match z.read(&mut buf) {
                Ok(0) => return (out, None),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) => return (out, Some(e.to_string())),
            }
        }
    }

    /// 50,000 empty skippable frames (400 KB) overflowed the stack (a call
    /// per frame) and took a whole `--files-from` run down; a loop reads
    /// past them to the data. Run on a thread with a small stack, as a
    /// worker's, so that a recursion per frame would still overflow it.
    #[test]
    fn many_skippable_frames_are_skipped_in_a_loop() {
        let data = lines(0, 100);
        let mut input = Vec::new();
        for _ in 0..50_000 {
            input.extend([0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0]);
        }
        input.extend(compress(&data));
        let (out, error) = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(move || decode(input))
            .expect("thread")
            .join()
            .expect("no overflow");
        assert_eq!(error, None);
        assert_eq!(out, data);
    }

    /// A frame whose content does not match its checksum is an error (it was
    /// analysed silently: a false hang, a false orphan), after the bytes it
    /// gave; a frame without a checksum, or with a right one, is not.
    #[test]
    fn a_content_checksum_mismatch_is_an_error() {
        let data = lines(0, 2000);
        let good = compress(&data);
        let (out, error) = decode(good.clone());
        assert_eq!((out, error), (data.clone(), None));
        let mut bad = good;
        let last = bad.len() - 1;
        bad[last] ^= 0x55;
        let (out, error) = decode(bad);
        assert_eq!(out, data, "the bytes come out first");
        let error = error.expect("an error");
        assert!(
            error.starts_with("zstd frame 1: content checksum mismatch"),
            "{error}"
        );
    }

    #[test]
    fn reads_every_frame_and_skips_skippable_ones() {
        let (a, b) = (lines(0, 50_000), lines(50_000, 60_000));
        let mut input = vec![0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 9, 9, 9];
        input.extend(compress(&a));
        input.extend(compress(&b));
        assert!(is_zstd(&input[..4]));
        let (out, error) = decode(input);
        assert_eq!(error, None);
        assert_eq!(out, [a, b].concat());
    }

    #[test]
    fn a_cut_frame_hands_out_its_window_then_the_error() {
        let data = lines(0, 200_000);
        let mut input = compress(&data);
        input.truncate(input.len() * 3 / 4);
        let (out, error) = decode(input);
        assert!(error.is_some());
        // Everything decoded before the cut is there (the last window too).
        assert!(
            out.len() > data.len() / 2,
            "{} of {}",
            out.len(),
            data.len()
        );
        assert_eq!(out, data[..out.len()]);
    }

    #[test]
    fn a_window_over_the_limit_is_refused_before_it_is_allocated() {
        // Window descriptor 0xA0: 2^(10+20) = 1 GiB; then a single-segment
        // frame whose content size says 2^60 bytes.
        let long = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xa0, 1, 0, 0];
        let (out, error) = decode(long);
        assert!(out.is_empty());
        assert!(error.unwrap().contains("window of 1024 MiB"));
        let mut single = vec![0x28, 0xb5, 0x2f, 0xfd, 0xe0];
        single.extend((1u64 << 60).to_le_bytes());
        let (_, error) = decode(single);
        assert!(error.unwrap().contains("over mcpdbg's limit of 128 MiB"));
    }
}
