//! Text helpers shared by every stage: short excerpts of log content and
//! escaping of untrusted text before it reaches a terminal.

use std::borrow::Cow;

/// The longest excerpt a finding keeps, in characters.
pub const EXCERPT_CHARS: usize = 200;

/// The first `chars` characters of `text`, when it is longer than that.
pub fn head(text: &str, chars: usize) -> Option<&str> {
    // No more characters than bytes: a text that short is whole, known
    // without decoding it (most excerpts, and every request's subject).
    if text.len() <= chars {
        return None;
    }
    text.char_indices().nth(chars).map(|(cut, _)| &text[..cut])
}

/// At most [`EXCERPT_CHARS`] characters of `text`, with `…` when cut.
pub fn excerpt(text: &str) -> String {
    excerpt_cow(text).into_owned()
}

/// [`excerpt`], borrowing a text short enough to be whole.
pub fn excerpt_cow(text: &str) -> Cow<'_, str> {
    match head(text, EXCERPT_CHARS) {
        Some(head) => Cow::Owned(format!("{head}…")),
        None => Cow::Borrowed(text),
    }
}

/// An excerpt of raw bytes, decoding only the first few hundred bytes
/// (invalid UTF-8 becomes U+FFFD).
pub fn excerpt_bytes(bytes: &[u8]) -> String {
    let head = &bytes[..bytes.len().min(EXCERPT_CHARS * 4)];
    let mut text = excerpt(&String::from_utf8_lossy(head));
    if head.len() < bytes.len() && !text.ends_with('…') {
        text.push('…');
    }
    text
}

/// A short text kept in place (up to `N` bytes), a longer one on the
/// heap; reads as a `str`. For the small texts kept once per record or per
/// request (a timestamp as written, a request's tool name), which would
/// otherwise cost an allocation and a free each.
#[derive(Clone)]
pub struct InlineText<const N: usize>(Repr<N>);

#[derive(Clone)]
enum Repr<const N: usize> {
    Inline { len: u8, bytes: [u8; N] },
    Heap(Box<str>),
}

impl<const N: usize> InlineText<N> {
    /// `N` must fit the length byte.
    const FITS: () = assert!(N <= u8::MAX as usize);

    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Inline { len, bytes } => {
                let bytes = &bytes[..usize::from(*len)];
                // SAFETY: an inline text's first `len` bytes are a copy of a
                // whole `str` (`From<&str>`, the only place `Repr::Inline` is
                // made; nothing changes them after), so they are UTF-8.
                unsafe { std::str::from_utf8_unchecked(bytes) }
            }
            Repr::Heap(text) => text,
        }
    }

    /// Whether the text is kept in place.
    pub fn is_inline(&self) -> bool {
        matches!(self.0, Repr::Inline { .. })
    }
}

impl<const N: usize> From<&str> for InlineText<N> {
    fn from(text: &str) -> InlineText<N> {
        let () = Self::FITS;
        if text.len() <= N {
            let mut bytes = [0; N];
            bytes[..text.len()].copy_from_slice(text.as_bytes());
            InlineText(Repr::Inline {
                len: text.len() as u8,
                bytes,
            })
        } else {
            InlineText(Repr::Heap(text.into()))
        }
    }
}

impl<const N: usize> From<String> for InlineText<N> {
    fn from(text: String) -> InlineText<N> {
        if text.len() <= N {
            InlineText::from(text.as_str())
        } else {
            InlineText(Repr::Heap(text.into_boxed_str()))
        }
    }
}

impl<const N: usize> std::ops::Deref for InlineText<N> {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl<const N: usize> AsRef<str> for InlineText<N> {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl<const N: usize> PartialEq for InlineText<N> {
    fn eq(&self, other: &InlineText<N>) -> bool {
        self.as_str() == other.as_str()
    }
}

impl<const N: usize> Eq for InlineText<N> {}

impl<const N: usize> std::fmt::Debug for InlineText<N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl<const N: usize> std::fmt::Display for InlineText<N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Greedy word wrap to lines of at most `width` characters (at least 1):
/// words are split at spaces, a space never starts or ends a line, and a
/// word longer than a line is broken across lines. Each line break in
/// `text` is kept.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    for paragraph in text.split('\n') {
        let mut line = String::new();
        let mut len = 0;
        for word in paragraph.split_whitespace() {
            let mut word = word;
            let mut chars = word.chars().count();
            if len > 0 && len + 1 + chars > width {
                lines.push(std::mem::take(&mut line));
                len = 0;
            }
            while len == 0 && chars > width {
                let (head, tail) = word.split_at(
                    word.char_indices()
                        .nth(width)
                        .map_or(word.len(), |(i, _)| i),
                );
                lines.push(head.to_string());
                word = tail;
                chars -= width;
            }
            if len > 0 {
                line.push(' ');
                len += 1;
            }
            line.push_str(word);
            len += chars;
        }
        if !line.is_empty() || paragraph.is_empty() && !text.is_empty() {
            lines.push(line);
        }
    }
    lines
}

/// `text` cut to at most `width` characters (at least 1), the last one `…`
/// when anything was cut.
pub fn fit(text: &str, width: usize) -> Cow<'_, str> {
    let width = width.max(1);
    if head(text, width).is_none() {
        return Cow::Borrowed(text);
    }
    let cut = head(text, width - 1).unwrap_or(text);
    Cow::Owned(format!("{cut}…"))
}

/// `prefix`, then `text` word-wrapped so that no line is longer than
/// `width` characters, every line after the first indented by `indent`
/// spaces (a hanging indent; at most half the width). A word longer than a
/// line is broken across lines; runs of spaces in `text` become one.
pub fn hanging(prefix: &str, text: &str, width: usize, indent: usize) -> Vec<String> {
    let width = width.max(2);
    let pad = " ".repeat(indent.min(width / 2));
    let mut lines = Vec::new();
    let mut line = prefix.to_string();
    let mut len = prefix.chars().count();
    // The length of the line before its first word.
    let mut start = len;
    for word in text.split_whitespace() {
        let mut word = word;
        let mut chars = word.chars().count();
        loop {
            let space = usize::from(len > start);
            if len + space + chars <= width {
                if space == 1 {
                    line.push(' ');
                }
                line.push_str(word);
                len += space + chars;
                break;
            }
            if len == start && len < width {
                // Alone on its line and still too long: break the word.
                let room = width - len;
                let at = word.char_indices().nth(room).map_or(word.len(), |(i, _)| i);
                line.push_str(&word[..at]);
                word = &word[at..];
                chars -= room;
            }
            lines.push(std::mem::replace(&mut line, pad.clone()));
            len = pad.len();
            start = len;
            if chars == 0 {
                break;
            }
        }
    }
    if len > start || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// `text` cut into lines of at most `width` characters (at least 2), every
/// line after the first indented by `indent` spaces (at most half the
/// width): nothing is left out, not even spaces.
pub fn hard_wrap(text: &str, width: usize, indent: usize) -> Vec<String> {
    let width = width.max(2);
    let indent = indent.min(width / 2);
    let mut lines = Vec::new();
    let mut rest = text;
    let mut room = width;
    loop {
        match head(rest, room) {
            None => {
                lines.push(format!("{}{rest}", " ".repeat(width - room)));
                return lines;
            }
            Some(piece) => {
                lines.push(format!("{}{piece}", " ".repeat(width - room)));
                rest = &rest[piece.len()..];
                room = width - indent;
            }
        }
    }
}

/// Escapes control characters, ANSI escape sequences (their ESC byte) and
/// bidirectional-override characters so that text from a log cannot move
/// the cursor, recolour or reorder a terminal. Everything else is unchanged.
pub fn escape_control(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_escape(c) => {
                push_code(&mut out, c);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Whether [`escape_control`] escapes `c`.
pub fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            // bidirectional marks, embeddings, overrides and isolates
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}'
            // invisible: zero-width space, joiners, word joiner, invisible
            // operators, BOM, soft hyphen, Mongolian vowel separator,
            // Hangul fillers, interlinear annotation marks
            | '\u{200b}'..='\u{200d}' | '\u{2060}'..='\u{2065}' | '\u{feff}' | '\u{00ad}'
            | '\u{180e}' | '\u{115f}' | '\u{1160}' | '\u{3164}' | '\u{ffa0}'
            | '\u{fff9}'..='\u{fffb}'
            // line and paragraph separators (line breaks to some terminals
            // and editors)
            | '\u{2028}' | '\u{2029}'
            // tag characters (invisible text)
            | '\u{e0000}'..='\u{e007f}'
        )
}

/// Breaks the markers a CI runner reads as a command in `text`, line by
/// line: a `::` that starts a line once its leading white space is trimmed
/// (a GitHub Actions workflow command, `::add-mask::…`) reads `:\:`, and
/// `##[` (the runner's legacy commands, acted on anywhere in a line) and
/// `##vso[` (Azure Pipelines' logging commands) read `##\[` and `##vso\[`.
/// Everything else is unchanged. Human output passes through it (see
/// [`CommandGuard`]), so that a log's text printed into a job log cannot set
/// an output, mask text or stop the runner's command processing.
pub fn guard_commands(text: &str) -> Cow<'_, str> {
    match guard_command_bytes(text.as_bytes()) {
        Cow::Borrowed(_) => Cow::Borrowed(text),
        // Only ASCII backslashes were put between ASCII characters.
        Cow::Owned(bytes) => Cow::Owned(
            String::from_utf8(bytes)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        ),
    }
}

/// [`guard_commands`] over bytes. Whether a backslash goes before a byte
/// depends only on the bytes before it, so the guarded form of the start of
/// a line is the start of the guarded line ([`CommandGuard`] relies on it).
pub fn guard_command_bytes(text: &[u8]) -> Cow<'_, [u8]> {
    let mut breaks = Vec::new();
    let mut start = 0;
    loop {
        let mut at = start;
        while let Some(width) = white_space_at(text, at) {
            at += width;
        }
        if text[at..].starts_with(b"::") {
            breaks.push(at + 1);
        }
        match memchr::memchr(b'\n', &text[start..]) {
            Some(n) => start += n + 1,
            None => break,
        }
    }
    for at in memchr::memchr_iter(b'[', text) {
        let before = &text[..at];
        if before.ends_with(b"##") || before.ends_with(b"##vso") {
            breaks.push(at);
        }
    }
    if breaks.is_empty() {
        return Cow::Borrowed(text);
    }
    breaks.sort_unstable();
    let mut out = Vec::with_capacity(text.len() + breaks.len());
    let mut from = 0;
    for at in breaks {
        out.extend_from_slice(&text[from..at]);
        out.push(b'\\');
        from = at;
    }
    out.extend_from_slice(&text[from..]);
    Cow::Owned(out)
}

/// The length of the white space character (as the runner trims it: the
/// Unicode White_Space property) at `at`, a line break excepted.
fn white_space_at(text: &[u8], at: usize) -> Option<usize> {
    let first = *text.get(at)?;
    let width = match first {
        b'\n' => return None,
        0..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    };
    let c = std::str::from_utf8(text.get(at..at + width)?)
        .ok()?
        .chars()
        .next()?;
    c.is_whitespace().then_some(width)
}

/// A writer that passes each line through [`guard_command_bytes`]: every
/// human renderer writes through one. Whole lines are written as they end;
/// `flush` also writes the start of a line not yet ended (and the rest of
/// it follows as it comes), and so does dropping the guard.
pub struct CommandGuard<W: std::io::Write> {
    inner: W,
    /// The line being written, up to its newline.
    line: Vec<u8>,
    /// The bytes of the guarded `line` already written (by a flush).
    written: usize,
}

impl<W: std::io::Write> CommandGuard<W> {
    pub fn new(inner: W) -> CommandGuard<W> {
        CommandGuard {
            inner,
            line: Vec::new(),
            written: 0,
        }
    }

    /// Writes what is not yet written of the guarded line.
    fn write_line(&mut self) -> std::io::Result<()> {
        let guarded = guard_command_bytes(&self.line);
        self.inner
            .write_all(&guarded[self.written.min(guarded.len())..])?;
        self.written = guarded.len();
        Ok(())
    }
}

impl<W: std::io::Write> std::io::Write for CommandGuard<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut rest = buf;
        while let Some(end) = memchr::memchr(b'\n', rest) {
            self.line.extend_from_slice(&rest[..=end]);
            self.write_line()?;
            self.line.clear();
            self.written = 0;
            rest = &rest[end + 1..];
        }
        self.line.extend_from_slice(rest);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if !self.line.is_empty() {
            self.write_line()?;
        }
        self.inner.flush()
    }
}

impl<W: std::io::Write> Drop for CommandGuard<W> {
    fn drop(&mut self) {
        if !self.line.is_empty() {
            let _ = self.write_line();
        }
    }
}

/// Writes one line of mcpdbg's own to standard error (a note, a warning, an
/// error naming a file or quoting a log) with its control characters
/// escaped and its CI command markers broken: standard error lands in job
/// logs too. See [`say!`](crate::say).
pub fn say_line(line: &str) {
    eprintln!("{}", guard_commands(&escape_control(line)));
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Seconds as a short human duration: `850 ms`, `7.2 s`, `3 min 05 s`.
pub fn duration(seconds: f64) -> String {
    if seconds < 1.0 {
        format!("{} ms", (seconds * 1000.0).round() as i64)
    } else if seconds < 60.0 {
        format!("{seconds:.1} s")
    } else {
        let s = seconds.round() as i64;
        if s < 3600 {
            format!("{} min {:02} s", s / 60, s % 60)
        } else {
            format!("{} h {:02} min", s / 3600, (s % 3600) / 60)
        }
    }
}

/// Writes `c` as its code: `\x1b` below U+0100, `\u{2028}` above. The one
/// spelling every text output uses for a character it must not print raw.
pub fn push_code(out: &mut String, c: char) {
    use std::fmt::Write as _;
    let n = c as u32;
    if n < 0x100 {
        let _ = write!(out, "\\x{n:02x}");
    } else {
        let _ = write!(out, "\\u{{{n:04x}}}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped() {
        for (n, text) in [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (250_000, "250,000"),
            (1_234_567, "1,234,567"),
        ] {
            assert_eq!(thousands(n), text);
        }
    }

    #[test]
    fn fits_cuts_and_wraps_to_a_width() {
        assert_eq!(fit("abcdef", 6), "abcdef");
        assert_eq!(fit("abcdefg", 6), "abcde…");
        assert_eq!(fit("abc", 0), "…");
        let lines = hanging("  └ ", "error rule: a long message that wraps", 16, 4);
        assert_eq!(
            lines,
            [
                "  └ error rule:",
                "    a long",
                "    message that",
                "    wraps"
            ]
        );
        assert!(lines.iter().all(|l| l.chars().count() <= 16));
        // A word longer than a line is broken; a prefix alone still ends.
        let lines = hanging("", "abcdefghijklmnop", 6, 2);
        assert_eq!(lines, ["abcdef", "  ghij", "  klmn", "  op"]);
        assert_eq!(hanging("ab ", "", 10, 2), ["ab "]);
        let lines = hard_wrap("    \"text\": \"a b c d\"", 10, 6);
        assert_eq!(
            lines,
            ["    \"text\"", "     : \"a ", "     b c d", "     \""]
        );
        for width in 0..30 {
            for l in hanging("xx ", "a bb ccc dddddddddddddddddddddd e", width, 8)
                .iter()
                .chain(&hard_wrap("abcdefghijklmnopqrstuvwxyz", width, 8))
            {
                assert!(l.chars().count() <= width.max(3), "{width}: {l:?}");
            }
        }
    }

    #[test]
    fn wraps_on_words_without_edge_spaces() {
        assert_eq!(wrap("aa bb cc", 5), vec!["aa bb", "cc"]);
        assert_eq!(wrap("", 5), Vec::<String>::new());
        assert_eq!(wrap("abcdefgh ij", 3), vec!["abc", "def", "gh", "ij"]);
        assert_eq!(wrap("a\n\nb c", 10), vec!["a", "", "b c"]);
        let text = "returned (it took 6.0 s), in a burst: a blocking call in `wait`";
        for width in 1..text.len() + 2 {
            for line in wrap(text, width) {
                assert!(line.chars().count() <= width, "{line:?} at {width}");
                assert!(!line.starts_with(' ') && !line.ends_with(' '), "{line:?}");
            }
            let joined: Vec<_> = wrap(text, width)
                .concat()
                .split_whitespace()
                .collect::<String>()
                .chars()
                .collect();
            let want: Vec<_> = text
                .split_whitespace()
                .collect::<String>()
                .chars()
                .collect();
            assert_eq!(joined, want, "nothing lost at {width}");
        }
    }

    #[test]
    fn excerpts_are_capped_on_char_boundaries() {
        let long = "é".repeat(500);
        let e = excerpt(&long);
        assert_eq!(e.chars().count(), EXCERPT_CHARS + 1);
        assert!(e.ends_with('…'));
        assert_eq!(excerpt("short"), "short");
        assert_eq!(excerpt_bytes(b"a\xffb"), "a\u{fffd}b");
        assert!(excerpt_bytes(&[b'x'; 5000]).ends_with('…'));
    }

    #[test]
    fn escapes_terminal_controls() {
        assert_eq!(escape_control("plain"), "plain");
        assert_eq!(escape_control("\x1b[2Jgone\x07"), "\\x1b[2Jgone\\x07");
        assert_eq!(escape_control("a\nb\rc\td"), "a\\nb\\rc\\td");
        assert_eq!(escape_control("\u{9b}x\u{202e}y"), "\\x9bx\\u{202e}y");
        // Invisible and line-breaking characters.
        assert_eq!(
            escape_control(
                "a\u{200b}b\u{200d}c\u{061c}d\u{ad}e\u{2028}f\u{2029}g\u{e0041}h\u{feff}"
            ),
            "a\\u{200b}b\\u{200d}c\\u{061c}d\\xade\\u{2028}f\\u{2029}g\\u{e0041}h\\u{feff}"
        );
        assert_eq!(escape_control("café 日本 \u{1F600}"), "café 日本 \u{1F600}");
    }

    #[test]
    fn command_markers_are_broken() {
        assert_eq!(guard_commands("plain: a::b ## [x]"), "plain: a::b ## [x]");
        assert_eq!(guard_commands("::error::x"), ":\\:error::x");
        assert_eq!(guard_commands("  \t::set-output"), "  \t:\\:set-output");
        assert_eq!(guard_commands("\u{3000}\u{a0}::x"), "\u{3000}\u{a0}:\\:x");
        assert_eq!(guard_commands("a\n ::b\nc ::d"), "a\n :\\:b\nc ::d");
        assert_eq!(
            guard_commands("x ##[add-mask]y ###[group] ##vso[task]z"),
            "x ##\\[add-mask]y ###\\[group] ##vso\\[task]z"
        );
        // Guarded text is left as it is.
        for text in ["::a ##[b ##vso[c", " :\\:a ##\\[b"] {
            let once = guard_commands(text).into_owned();
            assert_eq!(guard_commands(&once), once);
        }
    }

    #[test]
    fn the_guard_writes_each_line_guarded_however_it_is_cut() {
        use std::io::Write;
        let text = " \u{3000}::error::x ##[add-mask]y\n##vso[t]\n:: ##\n[\n  :";
        let want = guard_commands(text).into_owned();
        // Every way of cutting the text into two writes, with a flush
        // between them.
        for cut in (0..=text.len()).filter(|&c| text.is_char_boundary(c)) {
            let mut out = Vec::new();
            {
                let mut guard = CommandGuard::new(&mut out);
                guard.write_all(&text.as_bytes()[..cut]).unwrap();
                guard.flush().unwrap();
                guard.write_all(&text.as_bytes()[cut..]).unwrap();
            }
            assert_eq!(String::from_utf8(out).unwrap(), want, "cut at {cut}");
        }
        // Byte by byte, flushing after each.
        let mut out = Vec::new();
        {
            let mut guard = CommandGuard::new(&mut out);
            for b in text.as_bytes() {
                guard.write_all(&[*b]).unwrap();
                guard.flush().unwrap();
            }
        }
        assert_eq!(String::from_utf8(out).unwrap(), want);
    }

    #[test]
    fn durations() {
        assert_eq!(duration(0.25), "250 ms");
        assert_eq!(duration(7.25), "7.2 s");
        assert_eq!(duration(185.0), "3 min 05 s");
        assert_eq!(duration(7300.0), "2 h 01 min");
    }
}
