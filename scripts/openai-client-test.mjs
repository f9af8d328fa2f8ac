// The official OpenAI JavaScript client against a running `mlxbun serve`: a chat completion, a streamed one
// (with the usage chunk) and a json_schema response, each checked for the shapes the client hands back. Run by
// cmd/mlxbun's TestOpenAIJSClient, which installs the package into a temporary directory:
//   node scripts/openai-client-test.mjs BASE_URL API_KEY MODEL   (with NODE_PATH pointing at its node_modules)
import { createRequire } from "node:module";

const require = createRequire(process.env.OPENAI_MODULE_DIR + "/");
const OpenAI = require("openai").default ?? require("openai");
const [baseURL, apiKey, model] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 60_000 });

function check(cond, what) {
  if (!cond) {
    console.error("FAIL:", what);
    process.exit(1);
  }
}

const messages = [{ role: "user", content: "def add(a, b):" }];

const plain = await client.chat.completions.create({ model, messages, max_tokens: 12, temperature: 0.7, seed: 3 });
check(plain.object === "chat.completion", "chat: object " + plain.object);
check(typeof plain.choices[0].message.content === "string", "chat: content");
check(plain.usage.completion_tokens > 0 && plain.usage.prompt_tokens > 0, "chat: usage " + JSON.stringify(plain.usage));

const stream = await client.chat.completions.create({
  model, messages, max_tokens: 12, temperature: 0.7, seed: 3, stream: true, stream_options: { include_usage: true },
});
let text = "";
let usage = null;
let finish = null;
for await (const chunk of stream) {
  if (chunk.usage) usage = chunk.usage;
  for (const c of chunk.choices) {
    text += c.delta?.content ?? "";
    if (c.finish_reason) finish = c.finish_reason;
  }
}
check(text === plain.choices[0].message.content, `stream: ${JSON.stringify(text)} != ${JSON.stringify(plain.choices[0].message.content)}`);
check(finish === plain.choices[0].finish_reason, "stream: finish_reason " + finish);
check(usage && usage.completion_tokens === plain.usage.completion_tokens, "stream: usage " + JSON.stringify(usage));

const schema = {
  type: "object",
  properties: { name: { type: "string", maxLength: 8 }, n: { type: "integer" } },
  required: ["name", "n"],
  additionalProperties: false,
};
const structured = await client.chat.completions.create({
  model, messages, max_tokens: 64, temperature: 1, seed: 1,
  response_format: { type: "json_schema", json_schema: { name: "thing", schema, strict: true } },
});
const out = structured.choices[0].message.content;
if (structured.choices[0].finish_reason === "stop") {
  const v = JSON.parse(out);
  check(typeof v.name === "string" && Number.isInteger(v.n), "json_schema: " + out);
} else {
  check(out.startsWith("{"), "json_schema (cut at max_tokens): " + out);
}

let refused = false;
try {
  await client.chat.completions.create({ model, messages, tools: [{ type: "function", function: { name: "f" } }] });
} catch (e) {
  refused = e.status === 400 && /tools/.test(e.message);
}
check(refused, "tools: want a 400 naming the field");
console.log("ok: chat, streaming and json_schema through the openai client");
