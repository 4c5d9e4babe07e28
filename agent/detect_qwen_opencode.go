package agent

import "encoding/json"

// detectQwenOrOpencode tells Qwen Code and opencode lines from the others' (DetectFormat).
// Qwen Code's lines have Claude Code's shape: only its system init line (qwen_code_version) and
// its goal-state stream events say who wrote them, so a Qwen transcript cut before them reads as
// Claude's. opencode's lines carry a camel-case sessionID and a part (or, for errors, an error
// object) under a numeric timestamp, which no other agent writes.
func detectQwenOrOpencode(line []byte) string {
	var probe struct {
		Type        string          `json:"type"`
		QwenVersion json.RawMessage `json:"qwen_code_version"`
		Event       *struct {
			Type string `json:"type"`
		} `json:"event"`
		SessionID json.RawMessage `json:"sessionID"`
		Timestamp json.RawMessage `json:"timestamp"`
		Part      json.RawMessage `json:"part"`
		Error     json.RawMessage `json:"error"`
	}
	if json.Unmarshal(line, &probe) != nil {
		return ""
	}
	switch {
	case probe.Type == "system" && len(probe.QwenVersion) > 0:
		return FormatQwenCode
	case probe.Type == "stream_event" && probe.Event != nil && probe.Event.Type == "goal_state":
		return FormatQwenCode
	case isJSONString(probe.SessionID) && isJSONNumber(probe.Timestamp) &&
		(isJSONObject(probe.Part) || probe.Type == "error" && isJSONObject(probe.Error)):
		return FormatOpencode
	}
	return ""
}

func isJSONString(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '"' }

func isJSONNumber(raw json.RawMessage) bool {
	return len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9')
}
