// Package agent speaks goatarena's bot protocol (docs/protocol.md): it reads the
// referee's JSON lines from stdin, hands start, decide and end to a Bot, and writes
// the answers to stdout, one flushed line each. The messages are the types generated
// from the schema in package protocol.
package agent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"goatarena.invalid/bot/protocol"
)

// Bot is what a bot author writes: a name and what to do at each message.
type Bot interface {
	// Name is sent in the hello answer.
	Name() string
	// Start begins a game: reset per-game state here (one process plays many games).
	Start(start *protocol.Start)
	// Decide returns the index of the chosen action in request.Actions.
	Decide(request *Decide) int
	// End tells the game's result.
	End(end *protocol.End)
}

// Decide is a request for an action: the generic message (its actions and observation
// as plain JSON values) and the whole line, to read again with the game's generated types:
// request.Read(&protocol.MountainGoatsDecide{}).
type Decide struct {
	protocol.Decide
	// Line is the decide line as the referee wrote it.
	Line []byte
	// Received is when the line was read: the clock started just before.
	Received time.Time
}

// Read decodes the whole decide line into one of the game's types (protocol.<Game>Decide).
func (d *Decide) Read(game any) error {
	return json.Unmarshal(d.Line, game)
}

// TimeLeft is how long remains of this decision's time, measured from when it was read.
func (d *Decide) TimeLeft() time.Duration {
	return time.Duration(d.TimeMS)*time.Millisecond - time.Since(d.Received)
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
	Decision int64  `json:"decision"`
}

// Log writes one line to stderr, the bot's own log (the referee keeps it, never parses it).
func Log(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
}

// Run plays on stdin and stdout until quit or the end of input. The answers have stdout
// to themselves: from here on the bot's own prints (fmt.Println, os.Stdout) go to
// stderr, its log, and can never land inside an answer.
func Run(bot Bot) error {
	answers := os.Stdout
	os.Stdout = os.Stderr
	return Serve(bot, os.Stdin, answers)
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
		var start protocol.Start
		if err := json.Unmarshal(line, &start); err != nil {
			return false, fmt.Errorf("start: %w", err)
		}
		bot.Start(&start)
	case "decide":
		request := Decide{Line: line, Received: received}
		if err := json.Unmarshal(line, &request.Decide); err != nil {
			return false, fmt.Errorf("decide: %w", err)
		}
		index := bot.Decide(&request)
		return false, send(writer, actionAnswer{Type: "action", Index: index, Decision: request.Decision})
	case "end":
		var end protocol.End
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
