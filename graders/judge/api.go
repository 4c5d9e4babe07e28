// Package judge is a small client for OpenAI-compatible chat-completions endpoints (GitHub
// Models, OpenAI, Azure OpenAI, local servers), used by the LLM graders: bounded concurrency,
// retries that honour the server's rate-limit headers, a time budget per judgement and an
// on-disk verdict cache.
package judge

// The request and response shapes of POST {base}/chat/completions, limited to what the graders
// send and read.

// Request is a chat-completions request.
type Request struct {
	Model          string          `json:"model"`
	Messages       []Message       `json:"messages"`
	Temperature    *float64        `json:"temperature,omitempty"`
	Tools          []Tool          `json:"tools,omitempty"`
	ToolChoice     any             `json:"tool_choice,omitempty"`
	ResponseFormat *ResponseFormat `json:"response_format,omitempty"`
}

// Message is one chat message. Content is a pointer because an assistant message that only
// calls tools has `"content": null`.
type Message struct {
	Role      string     `json:"role"`
	Content   *string    `json:"content"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	Refusal   *string    `json:"refusal,omitempty"`
}

// Text returns the message content, "" when null.
func (m Message) Text() string {
	if m.Content == nil {
		return ""
	}
	return *m.Content
}

// NewMessage builds a message with text content.
func NewMessage(role, content string) Message { return Message{Role: role, Content: &content} }

// Tool is a function the model may call.
type Tool struct {
	Type     string   `json:"type"` // "function"
	Function Function `json:"function"`
}

// Function declares a tool function; Parameters is a JSON Schema.
type Function struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters,omitempty"`
}

// ResponseFormat asks for JSON output ({"type": "json_object"}).
type ResponseFormat struct {
	Type string `json:"type"`
}

// ToolCall is a function call made by the model. Arguments is a JSON document encoded as a string.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function and carries its arguments (a JSON string).
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Response is a chat-completions response.
type Response struct {
	ID      string   `json:"id"`
	Object  string   `json:"object,omitempty"`
	Created int64    `json:"created,omitempty"`
	Model   string   `json:"model"`
	Choices []Choice `json:"choices"`
	Usage   *Usage   `json:"usage,omitempty"`
}

// Choice is one completion.
type Choice struct {
	Index        int     `json:"index"`
	Message      Message `json:"message"`
	FinishReason string  `json:"finish_reason"`
}

// Usage is the token count of one request.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
}

// apiError is the error body OpenAI-compatible servers send: {"error": {"message", "code", …}}.
type apiError struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Param   string `json:"param"`
		Code    any    `json:"code"`
	} `json:"error"`
	Message string `json:"message"` // some servers put it at the top level
}

// First returns the first choice's message, or an empty message.
func (r *Response) First() Message {
	if r == nil || len(r.Choices) == 0 {
		return Message{}
	}
	return r.Choices[0].Message
}
