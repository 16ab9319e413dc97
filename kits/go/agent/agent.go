// Package agent speaks goatarena's bot protocol (docs/protocol.md): it reads the
// referee's JSON lines from stdin, hands start, decide and end to a Bot, and writes
// the answers to stdout, one flushed line each.
package agent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
)

// Bot is what a bot author writes: a name and what to do at each message.
type Bot interface {
	// Name is sent in the hello answer.
	Name() string
	// Start begins a game: reset per-game state here (one process plays many games).
	Start(start *Start)
	// Decide returns the index of the chosen action in request.Actions.
	Decide(request *Decide) int
	// End tells the game's result.
	End(end *End)
}

// TimeControl is a game's clock in milliseconds.
type TimeControl struct {
	MoveMs      int64 `json:"move_ms"`
	BankMs      int64 `json:"bank_ms"`
	IncrementMs int64 `json:"increment_ms"`
}

// Start is the referee's start message: the game, your seat and your seed.
type Start struct {
	Game    string                     `json:"game"`
	Seat    int                        `json:"seat"`
	Players []string                   `json:"players"`
	Time    TimeControl                `json:"time"`
	Options map[string]json.RawMessage `json:"options"`
	Match   string                     `json:"match"`
	// Seed is from 0 to 2^64-1: a uint64 holds every value exactly.
	Seed uint64 `json:"seed"`
}

// Event is one public decision made since your previous decide; hidden parts are null.
type Event struct {
	Seat   int             `json:"seat"`
	Action json.RawMessage `json:"action"`
}

// Decide asks for an action. Actions and Observation are kept as raw JSON: decode them
// with the game's types (see the observation helpers in this package).
type Decide struct {
	Decision    int               `json:"decision"`
	Actions     []json.RawMessage `json:"actions"`
	TimeMs      int64             `json:"time_ms"`
	Events      []Event           `json:"events"`
	Observation json.RawMessage   `json:"observation"`
	// Received is when the line was read: the clock started just before.
	Received time.Time `json:"-"`
}

// TimeLeft is how long remains of this decision's time, measured from when it was read.
func (d *Decide) TimeLeft() time.Duration {
	return time.Duration(d.TimeMs)*time.Millisecond - time.Since(d.Received)
}

// End is the result of a game.
type End struct {
	Scores []float64 `json:"scores"`
	Ranks  []int     `json:"ranks"`
	Seat   int       `json:"seat"`
}

type envelope struct {
	Type string `json:"type"`
}

type helloAnswer struct {
	Type     string `json:"type"`
	Name     string `json:"name"`
	Protocol int    `json:"protocol"`
}

type actionAnswer struct {
	Type     string `json:"type"`
	Index    int    `json:"index"`
	Decision int    `json:"decision"`
}

// Log writes one line to stderr, the bot's own log (the referee keeps it, never parses it).
func Log(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
}

// Run plays on stdin and stdout until quit or the end of input.
func Run(bot Bot) error {
	return Serve(bot, os.Stdin, os.Stdout)
}

// Serve plays the protocol on any reader and writer (the tests feed it recorded lines).
func Serve(bot Bot, in io.Reader, out io.Writer) error {
	reader := bufio.NewReaderSize(in, 1<<16)
	writer := bufio.NewWriter(out)
	for {
		line, err := reader.ReadBytes('\n')
		received := time.Now()
		if len(line) > 0 {
			quit, lineErr := handle(bot, line, received, writer)
			if lineErr != nil {
				return lineErr
			}
			if quit {
				return nil
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// handle answers one line; it reports whether the line was quit.
func handle(bot Bot, line []byte, received time.Time, writer *bufio.Writer) (bool, error) {
	var head envelope
	if err := json.Unmarshal(line, &head); err != nil {
		return false, fmt.Errorf("a line that is not JSON: %w", err)
	}
	switch head.Type {
	case "hello":
		return false, send(writer, helloAnswer{Type: "hello", Name: bot.Name(), Protocol: 1})
	case "start":
		var start Start
		if err := json.Unmarshal(line, &start); err != nil {
			return false, fmt.Errorf("start: %w", err)
		}
		bot.Start(&start)
	case "decide":
		request := Decide{Received: received}
		if err := json.Unmarshal(line, &request); err != nil {
			return false, fmt.Errorf("decide: %w", err)
		}
		index := bot.Decide(&request)
		return false, send(writer, actionAnswer{Type: "action", Index: index, Decision: request.Decision})
	case "end":
		var end End
		if err := json.Unmarshal(line, &end); err != nil {
			return false, fmt.Errorf("end: %w", err)
		}
		bot.End(&end)
	case "quit":
		return true, nil
	}
	// Unknown message types are skipped, as the protocol asks.
	return false, nil
}

func send(writer *bufio.Writer, message any) error {
	data, err := json.Marshal(message)
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if _, err := writer.Write(data); err != nil {
		return err
	}
	// A buffered answer is a late answer: flush every line.
	return writer.Flush()
}
