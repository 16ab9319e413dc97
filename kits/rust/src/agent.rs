//! The goatarena bot protocol (docs/protocol.md): read the referee's JSON lines from
//! stdin, hand start, decide and end to a [`Bot`], write each answer to stdout as one
//! flushed line. The messages are the types generated from the schema
//! ([`crate::protocol`]).

use std::io::{self, BufRead, Write};
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

pub use crate::protocol::{Decide, End, Start};

/// A request for an action: the generic decide message (its actions and observation as
/// plain JSON values) and the whole line, to read again with the game's generated types:
/// `request.read::<MountainGoatsDecide>()`.
#[derive(Debug, Clone)]
pub struct Request {
    pub message: Decide,
    /// The decide line as the referee wrote it.
    pub line: String,
    /// When the line was read: the decision's clock started just before.
    pub received: Instant,
}

impl Request {
    /// The line read as one of the game's types (`<Game>Decide` in [`crate::protocol`]).
    pub fn read<T: DeserializeOwned>(&self) -> serde_json::Result<T> {
        serde_json::from_str(&self.line)
    }

    /// The time left for this decision, measured from when its line was read.
    pub fn time_left(&self) -> Duration {
        let total = Duration::from_millis(self.message.time_ms.max(0) as u64);
        total.saturating_sub(self.received.elapsed())
    }
}

/// What a bot author writes: a name and what to do at each message.
pub trait Bot {
    /// Sent in the hello answer.
    fn name(&self) -> String;
    /// A game begins: reset per-game state here (one process plays many games).
    fn start(&mut self, start: &Start);
    /// The index of the chosen action in `request.message.actions`.
    fn decide(&mut self, request: &Request) -> usize;
    /// A game ended.
    fn end(&mut self, _end: &End) {}
}

/// Writes one line to stderr, the bot's own log (the referee keeps it, never parses it).
#[macro_export]
macro_rules! log {
    ($($arg:tt)*) => { eprintln!($($arg)*) };
}

#[derive(Serialize)]
#[serde(untagged)]
enum Answer {
    Hello { r#type: &'static str, name: String, protocol: u32 },
    Action { r#type: &'static str, index: usize, decision: i64 },
}

#[derive(Deserialize)]
struct Envelope {
    #[serde(default)]
    r#type: String,
}

fn read<T: DeserializeOwned>(line: &str) -> io::Result<T> {
    serde_json::from_str(line).map_err(|error| io::Error::new(io::ErrorKind::InvalidData, error))
}

/// Answers one line on `out`; returns false once it was quit.
pub fn handle(bot: &mut dyn Bot, line: &str, out: &mut dyn Write) -> io::Result<bool> {
    let received = Instant::now();
    let head: Envelope = read(line)?;
    let answer = match head.r#type.as_str() {
        "hello" => Some(Answer::Hello { r#type: "hello", name: bot.name(), protocol: 1 }),
        "start" => {
            bot.start(&read::<Start>(line)?);
            None
        }
        "decide" => {
            let request = Request { message: read(line)?, line: line.to_string(), received };
            let index = bot.decide(&request);
            Some(Answer::Action { r#type: "action", index, decision: request.message.decision })
        }
        "end" => {
            bot.end(&read::<End>(line)?);
            None
        }
        "quit" => return Ok(false),
        // Any other type is skipped, as the protocol asks.
        _ => None,
    };
    if let Some(answer) = answer {
        serde_json::to_writer(&mut *out, &answer)?;
        out.write_all(b"\n")?;
        // A buffered answer is a late answer: flush every line.
        out.flush()?;
    }
    Ok(true)
}

/// Plays on `input` and `out` until quit or the end of input.
pub fn serve(bot: &mut dyn Bot, input: &mut dyn BufRead, out: &mut dyn Write) -> io::Result<()> {
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(());
        }
        if line.trim().is_empty() {
            continue;
        }
        if !handle(bot, &line, out)? {
            return Ok(());
        }
    }
}

/// Plays on stdin and stdout until quit or the end of input.
///
/// The answers have stdout to themselves: they go out on a private copy of it, and stdout
/// itself is pointed at stderr, so whatever the bot prints (`println!`, a child process)
/// goes to its log and can never land inside an answer.
pub fn run(bot: &mut dyn Bot) -> io::Result<()> {
    let stdin = io::stdin();
    match private_stdout() {
        Some(answers) => serve(bot, &mut stdin.lock(), &mut io::BufWriter::new(answers)),
        None => serve(bot, &mut stdin.lock(), &mut io::stdout().lock()),
    }
}

/// A copy of stdout for the answers alone (not inherited by child processes), with
/// stdout itself then pointed at stderr; None where that cannot be done.
///
/// Written for Rust 1.63 (Debian's rustc, which a competition's build uses) as well as
/// newer ones: descriptor 1 is borrowed as a `File` that is never dropped, and
/// `try_clone` makes the copy (close-on-exec, so child processes do not inherit it).
fn private_stdout() -> Option<std::fs::File> {
    use std::mem::ManuallyDrop;
    use std::os::unix::io::FromRawFd;
    extern "C" {
        fn dup2(fd: i32, to: i32) -> i32;
    }
    io::stdout().flush().ok()?;
    // SAFETY: descriptor 1 is open for as long as the process runs, and ManuallyDrop
    // keeps this File from ever closing it.
    let stdout = ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(1) });
    let answers = stdout.try_clone().ok()?;
    // SAFETY: dup2 only replaces descriptor 1, which nothing here owns.
    if unsafe { dup2(2, 1) } < 0 {
        return None;
    }
    Some(answers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use std::fs;
    use std::path::Path;

    /// Answers every decide with its last action and keeps what it was told.
    #[derive(Default)]
    pub struct LastBot {
        pub starts: Vec<Start>,
        pub requests: Vec<Request>,
        pub ends: Vec<End>,
    }

    impl Bot for LastBot {
        fn name(&self) -> String {
            "fixture".to_string()
        }
        fn start(&mut self, start: &Start) {
            self.starts.push(start.clone());
        }
        fn decide(&mut self, request: &Request) -> usize {
            self.requests.push(request.clone());
            request.message.actions.len() - 1
        }
        fn end(&mut self, end: &End) {
            self.ends.push(end.clone());
        }
    }

    /// One recorded game (fixtures/<game>.json, written by kits/fixtures.py): the lines
    /// seat 0 was sent, joined as the referee wrote them, and the seed of its start as text.
    pub fn fixture(path: &Path) -> (String, String) {
        let recorded: Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
        let lines: Vec<&str> = recorded["lines"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
        (lines.join("\n") + "\n", recorded["seed"].as_str().unwrap().to_string())
    }

    fn play(input: &str) -> (LastBot, String) {
        let mut bot = LastBot::default();
        let mut out = Vec::new();
        serve(&mut bot, &mut input.as_bytes(), &mut out).unwrap();
        (bot, String::from_utf8(out).unwrap())
    }

    #[test]
    fn recorded_games_are_answered_line_for_line() {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut files = 0;
        for entry in fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().map_or(true, |e| e != "json") {
                continue;
            }
            files += 1;
            let (input, seed) = fixture(&path);
            let (bot, out) = play(&input);
            let answers: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
            let file = path.display();
            assert_eq!(answers[0]["type"], "hello", "{}", file);
            assert_eq!(answers[0]["name"], "fixture", "{}", file);
            assert!(!bot.requests.is_empty(), "{}: no decide", file);
            assert_eq!(answers.len(), bot.requests.len() + 1, "{}: one answer per decide", file);
            for (request, answer) in bot.requests.iter().zip(&answers[1..]) {
                let message = &request.message;
                assert_eq!(answer["type"], "action");
                assert_eq!(answer["index"], message.actions.len() - 1);
                assert_eq!(answer["decision"], message.decision);
                assert!(message.time_ms > 0 && request.time_left() <= Duration::from_millis(message.time_ms as u64));
                assert!(!message.observation.is_empty(), "{}: decision {}", file, message.decision);
            }
            let game = path.file_stem().unwrap().to_str().unwrap();
            assert_eq!(bot.starts.len(), 1);
            assert_eq!(bot.starts[0].game, game);
            assert_eq!(bot.starts[0].players.len(), 2);
            assert_eq!(bot.starts[0].seed.to_string(), seed, "{}: the seed exactly", file);
            assert_eq!(bot.ends.len(), 1);
            assert_eq!(bot.ends[0].scores.len(), 2);
            assert_eq!(bot.ends[0].ranks.len(), 2);
        }
        assert_eq!(files, 4, "the 4 recorded games are in fixtures/");
    }

    fn recorded(game: &str) -> LastBot {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(format!("{}.json", game));
        play(&fixture(&path).0).0
    }

    #[test]
    fn every_game_decides_with_its_generated_types() {
        use crate::protocol::*;
        let mut moves = 0;
        for request in &recorded("goat-lords").requests {
            let typed: GoatLordsDecide = request.read().unwrap();
            assert_eq!(typed.observation.hand_sizes.len(), 2);
            assert_eq!(typed.actions.len(), request.message.actions.len());
            moves += typed.actions.iter().filter(|a| matches!(a, GoatLordsAction::GoatLordsMove(_))).count();
        }
        assert!(moves > 0, "no goat-lords move read");
        for request in &recorded("goat-n-goat").requests {
            let typed: GoatNGoatDecide = request.read().unwrap();
            assert_eq!(typed.observation.flocks.len(), 2);
        }
        for request in &recorded("herr-der-ziegen").requests {
            let typed: HerrDerZiegenDecide = request.read().unwrap();
            assert_eq!(typed.observation.pasture.len() as i64, typed.observation.size);
        }
        let mountain = recorded("mountain-goats");
        for request in &mountain.requests {
            let typed: MountainGoatsDecide = request.read().unwrap();
            assert_eq!(typed.observation.seat as usize, mountain.starts[0].seat as usize);
            assert_eq!(typed.observation.dice.len(), 4);
            assert!(typed.actions.iter().all(|a| !a.groups.is_empty()));
        }
    }

    #[test]
    fn seed_above_i64_is_exact() {
        let (bot, _) = play(concat!(
            r#"{"type":"start","game":"mountain-goats","seat":1,"players":["a","b"],"#,
            r#""time":{"move_ms":1000,"bank_ms":0,"increment_ms":0},"options":{},"match":"","seed":18446744073709551615}"#,
            "\n"
        ));
        assert_eq!(bot.starts[0].seed, u64::MAX);
    }

    #[test]
    fn unknown_messages_and_fields_are_skipped() {
        let (_, out) = play(concat!(
            r#"{"type":"news","decide":{"type":"decide"}}"#,
            "\n",
            r#"{"type":"decide","decision":4,"actions":["a","b"],"time_ms":50,"events":[],"observation":{},"later":[1]}"#,
            "\n",
            r#"{"type":"quit"}"#,
            "\n",
            r#"{"type":"decide","decision":5,"actions":["a"],"time_ms":50,"events":[],"observation":{}}"#,
            "\n"
        ));
        assert_eq!(out, "{\"type\":\"action\",\"index\":1,\"decision\":4}\n");
    }
}
