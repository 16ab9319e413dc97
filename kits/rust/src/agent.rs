//! The goatarena bot protocol (docs/protocol.md): read the referee's JSON lines from
//! stdin, hand start, decide and end to a [`Bot`], write each answer to stdout as one
//! flushed line.

use std::io::{self, BufRead, Write};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A game's clock in milliseconds.
#[derive(Debug, Clone, Deserialize)]
pub struct TimeControl {
    pub move_ms: u64,
    pub bank_ms: u64,
    pub increment_ms: u64,
}

/// The start of a game: the game, your seat and your seed.
#[derive(Debug, Clone, Deserialize)]
pub struct Start {
    pub game: String,
    pub seat: usize,
    pub players: Vec<String>,
    pub time: TimeControl,
    #[serde(default)]
    pub options: Value,
    #[serde(default)]
    pub r#match: String,
    /// From 0 to 2^64-1: a `u64` holds every value exactly.
    pub seed: u64,
}

/// One public decision made since your previous decide; hidden parts are null.
#[derive(Debug, Clone, Deserialize)]
pub struct Event {
    pub seat: usize,
    pub action: Value,
}

/// A request for an action. The actions and the observation stay JSON values: read them
/// with the game's types ([`crate::mountain_goats`]).
#[derive(Debug, Clone, Deserialize)]
pub struct Decide {
    pub decision: u64,
    pub actions: Vec<Value>,
    pub time_ms: u64,
    #[serde(default)]
    pub events: Vec<Event>,
    #[serde(default)]
    pub observation: Value,
    /// When the line was read: the decision's clock started just before.
    #[serde(skip, default = "Instant::now")]
    pub received: Instant,
}

impl Decide {
    /// The time left for this decision, measured from when its line was read.
    pub fn time_left(&self) -> Duration {
        Duration::from_millis(self.time_ms).saturating_sub(self.received.elapsed())
    }
}

/// The result of a game.
#[derive(Debug, Clone, Deserialize)]
pub struct End {
    pub scores: Vec<f64>,
    pub ranks: Vec<u32>,
    pub seat: usize,
}

/// What a bot author writes: a name and what to do at each message.
pub trait Bot {
    /// Sent in the hello answer.
    fn name(&self) -> String;
    /// A game begins: reset per-game state here (one process plays many games).
    fn start(&mut self, start: &Start);
    /// The index of the chosen action in `request.actions`.
    fn decide(&mut self, request: &Decide) -> usize;
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
    Action { r#type: &'static str, index: usize, decision: u64 },
}

#[derive(Deserialize)]
struct Envelope {
    #[serde(default)]
    r#type: String,
}

fn read<T: for<'de> Deserialize<'de>>(line: &str) -> io::Result<T> {
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
            let mut request: Decide = read(line)?;
            request.received = received;
            let index = bot.decide(&request);
            Some(Answer::Action { r#type: "action", index, decision: request.decision })
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
pub fn run(bot: &mut dyn Bot) -> io::Result<()> {
    let stdin = io::stdin();
    let stdout = io::stdout();
    serve(bot, &mut stdin.lock(), &mut stdout.lock())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::path::Path;

    /// Answers every decide with its last action and keeps what it was told.
    #[derive(Default)]
    pub struct LastBot {
        pub starts: Vec<Start>,
        pub requests: Vec<Decide>,
        pub ends: Vec<End>,
    }

    impl Bot for LastBot {
        fn name(&self) -> String {
            "fixture".to_string()
        }
        fn start(&mut self, start: &Start) {
            self.starts.push(start.clone());
        }
        fn decide(&mut self, request: &Decide) -> usize {
            self.requests.push(request.clone());
            request.actions.len() - 1
        }
        fn end(&mut self, end: &End) {
            self.ends.push(end.clone());
        }
    }

    fn play(input: &str) -> (LastBot, String) {
        let mut bot = LastBot::default();
        let mut out = Vec::new();
        serve(&mut bot, &mut input.as_bytes(), &mut out).unwrap();
        (bot, String::from_utf8(out).unwrap())
    }

    #[test]
    fn recorded_games_are_answered_line_for_line() {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
        let mut files = 0;
        for entry in fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            files += 1;
            let (bot, out) = play(&fs::read_to_string(&path).unwrap());
            let answers: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
            let file = path.display();
            assert_eq!(answers[0]["type"], "hello", "{}", file);
            assert_eq!(answers[0]["name"], "fixture", "{}", file);
            assert!(!bot.requests.is_empty(), "{}: no decide", file);
            assert_eq!(answers.len(), bot.requests.len() + 1, "{}: one answer per decide", file);
            for (request, answer) in bot.requests.iter().zip(&answers[1..]) {
                assert_eq!(answer["type"], "action");
                assert_eq!(answer["index"], request.actions.len() - 1);
                assert_eq!(answer["decision"], request.decision);
                assert!(request.time_ms > 0 && request.time_left() <= Duration::from_millis(request.time_ms));
                assert!(request.observation.is_object(), "{}: decision {}", file, request.decision);
            }
            let game = path.file_stem().unwrap().to_str().unwrap();
            assert_eq!(bot.starts.len(), 1);
            assert_eq!(bot.starts[0].game, game);
            assert_eq!(bot.starts[0].players.len(), 2);
            assert_eq!(bot.ends.len(), 1);
            assert_eq!(bot.ends[0].scores.len(), 2);
            assert_eq!(bot.ends[0].ranks.len(), 2);
        }
        assert_eq!(files, 4, "the 4 recorded games are in testdata/");
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
