package mcpserver

import (
	"encoding/json"
	"testing"
)

// members agrees with encoding/json on the top-level members of valid
// objects: escaped keys, brackets and quotes inside strings, spacing,
// duplicates (the later wins), every kind of value.
func TestMembersAgreesWithDecoding(t *testing.T) {
	for _, src := range []string{
		`{}`,
		` { } `,
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		"{ \"id\" :\t-1.5e3 ,\n\"method\" : \"a\\\"b\" , \"params\":{\"x\":\"]}\\\\\",\"y\":[1,{\"z\":\"[\"}]}}",
		`{"\u006dethod":"escaped key","id":null,"ok":true,"no":false,"list":[[],[[]],{}]}`,
		`{"id":1,"id":"two"}`,
		`{"result":"}","error":{"code":-1,"message":"m"}}`,
	} {
		var want map[string]json.RawMessage
		if err := json.Unmarshal([]byte(src), &want); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		got := members([]byte(src))
		if len(got) != len(want) {
			t.Errorf("%s: members %q, want %q", src, got, want)
			continue
		}
		for k, v := range want {
			if string(got[k]) != string(v) {
				t.Errorf("%s: member %q is %q, want %q", src, k, got[k], v)
			}
		}
	}
}
