/** The names models see, shared by every layer that publishes tools. */

/** The pattern every alias (and every tool name a model sees) matches: valid for OpenAI, Anthropic and Gemini. */
export const MODEL_TOOL_NAME = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;
