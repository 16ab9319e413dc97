package agent

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"goatarena.invalid/bot/protocol"
)

// firstBot answers every decide with its last action and records what it was told.
type firstBot struct {
	starts   []*protocol.Start
	requests []*Decide
	ends     []*protocol.End
}

func (b *firstBot) Name() string                { return "fixture" }
func (b *firstBot) Start(start *protocol.Start) { b.starts = append(b.starts, start) }
func (b *firstBot) End(end *protocol.End)       { b.ends = append(b.ends, end) }
func (b *firstBot) Decide(d *Decide) int {
	b.requests = append(b.requests, d)
	return len(d.Actions) - 1
}

func answers(t *testing.T, output string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(output, "\n"), "\n") {
		var message map[string]any
		if err := json.Unmarshal([]byte(line), &message); err != nil {
			t.Fatalf("an answer that is not JSON: %q", line)
		}
		out = append(out, message)
	}
	return out
}

// fixture is one recorded game (fixtures/<game>.json, written by kits/fixtures.py): the
// lines seat 0 was sent, and the seed of its start as text.
type fixture struct {
	Game  string   `json:"game"`
	Seed  string   `json:"seed"`
	Lines []string `json:"lines"`
}

func readFixture(t *testing.T, path string) fixture {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var recorded fixture
	if err := json.Unmarshal(data, &recorded); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recorded
}

func (f fixture) input() io.Reader {
	return strings.NewReader(strings.Join(f.Lines, "\n") + "\n")
}

func TestRecordedGamesAreAnsweredLineForLine(t *testing.T) {
	files, _ := filepath.Glob("../fixtures/*.json")
	if len(files) != 4 {
		t.Fatalf("expected the 4 recorded games, found %v", files)
	}
	for _, file := range files {
		recorded := readFixture(t, file)
		bot := &firstBot{}
		var out bytes.Buffer
		if err := Serve(bot, recorded.input(), &out); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		got := answers(t, out.String())
		if got[0]["type"] != "hello" || got[0]["name"] != "fixture" {
			t.Fatalf("%s: the first answer is not hello: %v", file, got[0])
		}
		if len(got)-1 != len(bot.requests) || len(bot.requests) == 0 {
			t.Fatalf("%s: %d decides but %d answers", file, len(bot.requests), len(got)-1)
		}
		for i, request := range bot.requests {
			answer := got[i+1]
			if answer["type"] != "action" || int(answer["index"].(float64)) != len(request.Actions)-1 ||
				int64(answer["decision"].(float64)) != request.Decision {
				t.Fatalf("%s: answer %v to decision %d", file, answer, request.Decision)
			}
			if request.TimeMS <= 0 || request.TimeLeft() > 1000*1e6 || len(request.Observation) == 0 {
				t.Fatalf("%s: decision %d lost its time or observation", file, request.Decision)
			}
		}
		game := strings.TrimSuffix(filepath.Base(file), ".json")
		if len(bot.starts) != 1 || bot.starts[0].Game != game || len(bot.starts[0].Players) != 2 ||
			strconv.FormatUint(bot.starts[0].Seed, 10) != recorded.Seed {
			t.Fatalf("%s: start not read: %+v", file, bot.starts)
		}
		if len(bot.ends) != 1 || len(bot.ends[0].Scores) != 2 || len(bot.ends[0].Ranks) != 2 {
			t.Fatalf("%s: end not read: %+v", file, bot.ends)
		}
	}
}

// recorded plays a recorded game and returns what the bot was told.
func recorded(t *testing.T, game string) *firstBot {
	t.Helper()
	bot := &firstBot{}
	if err := Serve(bot, readFixture(t, "../fixtures/"+game+".json").input(), &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	return bot
}

func TestMountainGoatsDecideIsTyped(t *testing.T) {
	bot := recorded(t, "mountain-goats")
	for _, request := range bot.requests {
		var typed protocol.MountainGoatsDecide
		if err := request.Read(&typed); err != nil {
			t.Fatal(err)
		}
		observation := typed.Observation
		if observation.Seat != bot.starts[0].Seat || len(observation.Dice) != 4 ||
			len(observation.Steps) != 2 || len(observation.Heights) != 6 ||
			len(typed.Actions) != len(request.Actions) || typed.Decision != request.Decision {
			t.Fatalf("decision %d: %+v", request.Decision, typed)
		}
		for _, action := range typed.Actions {
			if len(action.Groups) == 0 {
				t.Fatalf("decision %d: an action without dice groups", request.Decision)
			}
		}
	}
}

func TestCardGamesActionsAreWordsOrMoves(t *testing.T) {
	kinds := map[string]int{}
	for _, request := range recorded(t, "goat-lords").requests {
		var typed protocol.GoatLordsDecide
		if err := request.Read(&typed); err != nil {
			t.Fatalf("goat-lords decision %d: %v", request.Decision, err)
		}
		if len(typed.Observation.Hand) == 0 && len(typed.Observation.HandSizes) != 2 {
			t.Fatalf("goat-lords decision %d: observation %+v", request.Decision, typed.Observation)
		}
		for _, action := range typed.Actions {
			switch {
			case action.Enum != nil:
				kinds["word"]++
			case action.GoatLordsMove != nil:
				kinds["move"]++
			default:
				t.Fatalf("goat-lords decision %d: an action read as neither", request.Decision)
			}
		}
	}
	for _, request := range recorded(t, "herr-der-ziegen").requests {
		var typed protocol.HerrDerZiegenDecide
		if err := request.Read(&typed); err != nil {
			t.Fatalf("herr-der-ziegen decision %d: %v", request.Decision, err)
		}
		if typed.Observation.Size == 0 || int64(len(typed.Observation.Pasture)) != typed.Observation.Size {
			t.Fatalf("herr-der-ziegen decision %d: pasture %v", request.Decision, typed.Observation.Pasture)
		}
	}
	for _, request := range recorded(t, "goat-n-goat").requests {
		var typed protocol.GoatNGoatDecide
		if err := request.Read(&typed); err != nil {
			t.Fatalf("goat-n-goat decision %d: %v", request.Decision, err)
		}
		if len(typed.Observation.Flocks) != 2 || typed.Observation.Phase == "" {
			t.Fatalf("goat-n-goat decision %d: observation %+v", request.Decision, typed.Observation)
		}
	}
	if kinds["move"] == 0 {
		t.Fatalf("no goat-lords move read: %v", kinds)
	}
}

func TestSeedAboveInt64IsExact(t *testing.T) {
	input := `{"type":"start","game":"mountain-goats","seat":1,"players":["a","b"],` +
		`"time":{"move_ms":1000,"bank_ms":0,"increment_ms":0},"options":{},"match":"","seed":18446744073709551615}` + "\n"
	bot := &firstBot{}
	if err := Serve(bot, strings.NewReader(input), &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if bot.starts[0].Seed != math.MaxUint64 {
		t.Fatalf("seed read as %d", bot.starts[0].Seed)
	}
}

func TestUnknownMessagesAndFieldsAreSkipped(t *testing.T) {
	input := `{"type":"news","decide":{"type":"decide"}}` + "\n" +
		`{"type":"decide","decision":4,"actions":["a","b"],"time_ms":50,"events":[],"observation":{},"later":[1]}` + "\n" +
		`{"type":"quit"}` + "\n" + `{"type":"decide","decision":5,"actions":["a"],"time_ms":50,"events":[],"observation":{}}` + "\n"
	var out bytes.Buffer
	if err := Serve(&firstBot{}, strings.NewReader(input), &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != `{"type":"action","index":1,"decision":4}`+"\n" {
		t.Fatalf("answered %q", out.String())
	}
}
