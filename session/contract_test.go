package session

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine/errcode"
)

var updateContract = flag.Bool("update", false, "rewrite the editors' generated contract files")

// The editors' declarations generated from the contract (commands.go).
const (
	contractTS  = "../editors/vscode/src/contract.ts"
	contractLua = "../editors/neovim/lua/magicfrog/contract.lua"
)

// contractField is one JSON field of an argument or data type.
type contractField struct {
	name     string
	t        reflect.Type
	optional bool // omitempty or a pointer
}

// jsonFields lists t's JSON fields in order, embedded structs flattened.
func jsonFields(t reflect.Type) []contractField {
	var out []contractField
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, contractField{name, f.Type, strings.Contains(opts, "omitempty") || f.Type.Kind() == reflect.Pointer})
	}
	return out
}

func tsType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Pointer: // optional: absent (or null) is the default
		return tsType(t.Elem())
	case reflect.Slice:
		return tsType(t.Elem()) + "[]"
	case reflect.Map:
		return "Record<string, " + tsType(t.Elem()) + ">"
	}
	return "unknown"
}

func luaType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Pointer:
		return luaType(t.Elem())
	case reflect.Slice:
		return luaType(t.Elem()) + "[]"
	}
	return "table"
}

// argsName is the editors' name of a command's argument type:
// magicfrog.promote → PromoteArgs.
func argsName(command string) string {
	n := strings.TrimPrefix(command, "magicfrog.")
	return strings.ToUpper(n[:1]) + n[1:] + "Args"
}

const generatedHeader = "Code generated from session/commands.go and engine/errcode by `go test ./session -run TestContractFiles -update`; DO NOT EDIT."

func generateTS() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n//\n// The server's commands (docs/protocol.md): each command's argument type, and\n// the data of a failed command's JSON-RPC error (decide on `code`, never on the message).\n", generatedHeader)
	iface := func(doc, name string, fields []contractField, allOptional bool) {
		fmt.Fprintf(&b, "\n/** %s */\nexport interface %s {\n", doc, name)
		for _, f := range fields {
			q := ""
			if allOptional || f.optional {
				q = "?"
			}
			fmt.Fprintf(&b, "  %s%s: %s;\n", f.name, q, tsType(f.t))
		}
		b.WriteString("}\n")
	}
	iface("A failed command's JSON-RPC error `data` (engine/errcode.Data), and an MCP tool error's structured content.", "ErrorData", jsonFields(reflect.TypeFor[errcode.Data]()), false)
	for _, c := range Commands {
		iface(c.Name+"'s argument.", argsName(c.Name), jsonFields(c.Arg), true)
	}
	b.WriteString("\n/** Each command's argument type, by command name. */\nexport interface CommandArgs {\n")
	for _, c := range Commands {
		fmt.Fprintf(&b, "  '%s': %s;\n", c.Name, argsName(c.Name))
	}
	b.WriteString("}\n\nexport type CommandName = keyof CommandArgs;\n")
	return b.Bytes()
}

func generateLua() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "-- %s\n--\n-- The server's commands (docs/protocol.md): each command's argument fields, and\n-- the data of a failed command's JSON-RPC error (decide on `code`, never on the message).\nlocal M = {}\n", generatedHeader)
	class := func(name string, fields []contractField, allOptional bool) {
		fmt.Fprintf(&b, "\n---@class magicfrog.%s\n", name)
		for _, f := range fields {
			q := ""
			if allOptional || f.optional {
				q = "?"
			}
			fmt.Fprintf(&b, "---@field %s %s%s\n", f.name, luaType(f.t), q)
		}
	}
	class("ErrorData", jsonFields(reflect.TypeFor[errcode.Data]()), false)
	for _, c := range Commands {
		class(argsName(c.Name), jsonFields(c.Arg), true)
	}
	b.WriteString("\n--- Each command's argument fields, by command name.\nM.commands = {\n")
	for _, c := range Commands {
		var names []string
		for _, f := range jsonFields(c.Arg) {
			names = append(names, fmt.Sprintf("%q", f.name))
		}
		if len(names) == 0 {
			fmt.Fprintf(&b, "  [%q] = {},\n", c.Name)
			continue
		}
		fmt.Fprintf(&b, "  [%q] = { %s },\n", c.Name, strings.Join(names, ", "))
	}
	b.WriteString("}\n\n--- The data of a failed command's error (err.data), or nil.\n---@return magicfrog.ErrorData?\nfunction M.error_data(err)\n  if type(err) == \"table\" and type(err.data) == \"table\" and type(err.data.code) == \"string\" then\n    return err.data\n  end\n  return nil\nend\n\nreturn M\n")
	return b.Bytes()
}

// TestContractFiles: the editors' declarations are the contract's: every
// command's argument type in TypeScript and Lua, and the error data.
func TestContractFiles(t *testing.T) {
	for _, f := range []struct {
		path string
		want []byte
	}{{contractTS, generateTS()}, {contractLua, generateLua()}} {
		if *updateContract {
			if err := os.WriteFile(f.path, f.want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, f.want) {
			t.Errorf("%s is not what the contract generates: run go test ./session -run TestContractFiles -update", f.path)
		}
	}
}

// TestContractDeclared: every command is declared once with a struct
// argument, and the commands the editors send are declared ones.
func TestContractDeclared(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Commands {
		if seen[c.Name] {
			t.Errorf("%s is declared twice", c.Name)
		}
		seen[c.Name] = true
		if c.Arg.Kind() != reflect.Struct {
			t.Errorf("%s: the argument is %v, not an object", c.Name, c.Arg)
		}
	}
	if ShowNoteCommand != ShowEntryCmd.Name {
		t.Errorf("the lens command %q is not %s", ShowNoteCommand, ShowEntryCmd.Name)
	}
	sent := map[string][]string{}
	read := func(path string, re *regexp.Regexp) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			sent[m[1]] = append(sent[m[1]], path)
		}
	}
	// The VS Code extension names the commands it sends in protocol.ts's Commands.
	b, err := os.ReadFile("../editors/vscode/src/protocol.ts")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile(`(?s)export const Commands = \{(.*?)\}`).FindSubmatch(b)
	if block == nil {
		t.Fatal("protocol.ts has no Commands")
	}
	for _, m := range regexp.MustCompile(`'(magicfrog\.\w+)'`).FindAllSubmatch(block[1], -1) {
		sent[string(m[1])] = append(sent[string(m[1])], "protocol.ts")
	}
	for _, f := range []string{"client.lua", "commands.lua", "ui.lua", "init.lua"} {
		read("../editors/neovim/lua/magicfrog/"+f, regexp.MustCompile(`execute\("(magicfrog\.\w+)"`))
	}
	if len(sent) < 5 {
		t.Fatalf("found only %d commands the editors send", len(sent))
	}
	for name, where := range sent {
		if !seen[name] {
			t.Errorf("%v send %s, which the contract does not declare", where, name)
		}
	}
}

// TestContractDocs: docs/protocol.md's command table has one row per
// command, whose argument column names every field of its argument.
func TestContractDocs(t *testing.T) {
	b, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| `(magicfrog\\.\\w+)` \\| (.*?) \\| ").FindAllStringSubmatch(string(b), -1) {
		rows[m[1]] = m[2]
	}
	var names []string
	for _, c := range Commands {
		names = append(names, c.Name)
		arg, ok := rows[c.Name]
		if !ok {
			t.Errorf("docs/protocol.md has no row for %s", c.Name)
			continue
		}
		fields := jsonFields(c.Arg)
		if len(fields) == 0 && arg != "none" {
			t.Errorf("docs/protocol.md: %s takes no argument, the row says %q", c.Name, arg)
		}
		for _, f := range fields {
			if !regexp.MustCompile(`\b` + regexp.QuoteMeta(f.name) + `\b`).MatchString(arg) {
				t.Errorf("docs/protocol.md: the row of %s does not name its argument field %q: %s", c.Name, f.name, arg)
			}
		}
	}
	for name := range rows {
		if !slices.Contains(names, name) {
			t.Errorf("docs/protocol.md has a row for %s, which the contract does not declare", name)
		}
	}
}

// TestEditorsDecideOnCodes: no editor source matches English in an error's
// message; they read error.data.code (and data.revision) instead.
func TestEditorsDecideOnCodes(t *testing.T) {
	// A string test (match, find, exec, test, includes, startsWith, endsWith,
	// indexOf, search) on a line that reads an error or its message.
	test := regexp.MustCompile(`(:match\(|:find\(|\.match\(|\.exec\(|\.test\(|\.includes\(|\.startsWith\(|\.endsWith\(|\.indexOf\(|\.search\(|string\.find\(|string\.match\()`)
	errorish := regexp.MustCompile(`\berr\b|\berror\b|\be\b\)|message\(|\.message\b|\bmsg\b|tostring\(err`)
	var files []string
	for _, root := range []string{"../editors/vscode/src", "../editors/neovim/lua"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "test" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if strings.HasSuffix(path, ".ts") || strings.HasSuffix(path, ".lua") {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) < 10 {
		t.Fatalf("found only %d editor sources", len(files))
	}
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if test.MatchString(line) && errorish.MatchString(line) {
				t.Errorf("%s:%d matches text against an error: decide on error.data.code (docs/protocol.md, \"Errors\"):\n\t%s", path, i+1, strings.TrimSpace(line))
			}
		}
	}
}

// TestTypedArg: a fix's map argument becomes the declared type, and one the
// contract does not declare is refused.
func TestTypedArg(t *testing.T) {
	got, err := TypedArg("magicfrog.registerAgent", map[string]any{"id": "larry", "shared": true})
	if err != nil || got != (RegisterAgentArgs{ID: "larry", Shared: true}) {
		t.Errorf("registerAgent: %#v, %v", got, err)
	}
	for _, c := range []struct {
		name string
		arg  map[string]any
	}{
		{"magicfrog.nope", nil},
		{"magicfrog.registerTask", map[string]any{"id": "T-1", "colour": "red"}},
		{"magicfrog.promote", map[string]any{"uri": 3}},
	} {
		if _, err := TypedArg(c.name, c.arg); err == nil {
			t.Errorf("%s %v: no error", c.name, c.arg)
		}
	}
}
