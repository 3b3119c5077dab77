package safety

import (
	"regexp"
	"sync"
)

// Rule is one check of the safety check: an ID that stays put (SARIF's
// ruleId, what a policy or a trust record names), the level its findings
// have by default, and the reason a user reads beside the line.
type Rule struct {
	ID     string
	Level  RiskLevel
	Reason string
}

// The rules, by ID. Findings name theirs in Finding.Rule; [Rules] lists
// them for SARIF's rule table.
var (
	ruleScript        = Rule{"script-changed", RiskLow, "script added or changed"}
	ruleControlName   = Rule{"control-file-name", RiskHigh, "file name holds a control, invisible or bidirectional character (can rewrite what a terminal shows)"}
	rulePipe          = Rule{"download-pipe-shell", RiskHigh, "downloads code and pipes it into an interpreter (curl … | sh)"}
	ruleVendorPipe    = Rule{"vendor-installer", RiskMedium, "runs a vendor's documented installer from the vendor's own domain (curl … | sh)"}
	ruleDownloadRun   = Rule{"download-run", RiskHigh, "downloads a program and runs it"}
	ruleBase64        = Rule{"base64-blob", RiskMedium, "long base64 blob (hidden payload?)"}
	ruleDecodeExec    = Rule{"decode-exec", RiskCritical, "decodes a hidden payload and runs it (base64, hex or character codes fed to a shell or eval)"}
	ruleHidden        = Rule{"encoded-payload", RiskCritical, "an encoded string decodes to something dangerous"}
	ruleControl       = Rule{"terminal-control", RiskHigh, "terminal control character (can rewrite what a terminal shows)"}
	ruleInvisible     = Rule{"invisible-char", RiskHigh, "invisible or bidirectional-control character (hides text from a reviewer)"}
	ruleTags          = Rule{"unicode-tags", RiskCritical, "Unicode tag characters hide text that the agent reads and a person does not see"}
	ruleIgnore        = Rule{"prompt-injection", RiskCritical, "tells the agent to ignore previous instructions (prompt injection)"}
	ruleStealth       = Rule{"hide-from-user", RiskHigh, "tells the agent to hide what it does from the user"}
	ruleHTMLComment   = Rule{"html-comment-instructions", RiskHigh, "hides instructions to the agent in an HTML comment (invisible when rendered)"}
	ruleArchivePass   = Rule{"password-archive", RiskHigh, "extracts a password-protected archive (its content is hidden from every scanner)"}
	ruleArchiveRun    = Rule{"password-archive-run", RiskCritical, "downloads a password-protected archive and runs what is inside (the shape of infostealer droppers)"}
	ruleSecretRead    = Rule{"credential-read", RiskMedium, "reads credentials (SSH keys, cloud keys, .env files, keychains)"}
	ruleEnvDump       = Rule{"environment-dump", RiskMedium, "collects the whole environment (which holds tokens and keys)"}
	ruleExfilHost     = Rule{"capture-service", RiskMedium, "sends data to a request-capture or tunnel service (webhook.site, ngrok, Discord or Telegram bots …)"}
	ruleExfil         = Rule{"credential-exfiltration", RiskHigh, "reads credentials or the environment and sends data over the network in one file (can steal them)"}
	ruleExfilNear     = Rule{"credential-exfiltration-direct", RiskCritical, "sends credentials or the environment over the network"}
	rulePersist       = Rule{"shell-profile-persistence", RiskHigh, "makes itself run at every shell start or login (~/.bashrc, profile, crontab, autostart)"}
	ruleProfileEnv    = Rule{"shell-profile-environment", RiskMedium, "adds an environment setting (export, PATH, alias, a tool's init line) to a shell profile"}
	ruleReverseShell  = Rule{"reverse-shell", RiskCritical, "opens a reverse shell (hands control of this machine to a remote one)"}
	ruleAllowAll      = Rule{"allow-all-commands", RiskHigh, "lets the agent run every command without asking (permission bypass)"}
	ruleAllowAllFlag  = Rule{"allow-all-flag", RiskMedium, "starts an agent with the flag that runs every command without asking"}
	ruleSettingsWrite = Rule{"agent-settings-allow-all", RiskCritical, "edits the agent's own settings to allow every command"}
	rulePlugin        = Rule{"plugin-runnable", RiskMedium, "a plugin's hook, MCP or LSP server is new or changed"}
	ruleUnparsed      = Rule{"plugin-config-unparsed", RiskMedium, "a plugin's declaration file does not parse (what it runs cannot be checked)"}
	ruleOther         = Rule{"other", RiskMedium, "a finding recorded before the checks had IDs"}
)

// Rules lists every check, for SARIF's rule table and the docs.
func Rules() []Rule {
	return []Rule{ruleScript, ruleControlName, rulePipe, ruleVendorPipe, ruleDownloadRun, ruleBase64,
		ruleDecodeExec, ruleHidden, ruleControl, ruleInvisible, ruleTags, ruleIgnore, ruleStealth,
		ruleHTMLComment, ruleArchivePass, ruleArchiveRun, ruleSecretRead, ruleEnvDump, ruleExfilHost,
		ruleExfil, ruleExfilNear, rulePersist, ruleProfileEnv, ruleReverseShell, ruleAllowAll, ruleAllowAllFlag, ruleSettingsWrite,
		rulePlugin, ruleUnparsed, ruleOther}
}

// lineRule is a rule matched line by line: words are a cheap test on the
// lowercased line in front of the regular expression. A match is lowered
// to medium where the line quotes it in a warning or a code comment (see
// lineContext.discussed).
type lineRule struct {
	Rule
	words []string
	re    string
}

// lineRules are the rules matched line by line; the signals that
// combine into findings are in combine.go.
var lineRules = []lineRule{
	{Rule: ruleDecodeExec,
		words: []string{"base64", "b64decode", "fromhex", "unhexlify", "atob", "fromcharcode", "xxd", `\x`, "-enc", "frombase64string", "marshal", "decompress", "chr("},
		re: `(?i)base64\s+(-d|--decode|-D)\b[^\n]*\|\s*(sudo\s+)?(\S*/)?(ba|z|k|da|fi)?sh\b` +
			`|base64\s+(-d|--decode|-D)\b[^\n|]*\|\s*(sudo\s+)?(python3?|perl|ruby|node|php)\b` +
			`|\b(eval|exec|source)\b\s*\(?\s*["']?\$\(\s*(echo|printf|cat)\b[^)]*\|\s*(base64|xxd|openssl)` +
			`|\b(ba|z)?sh\s+-c\s+["']?\$\(\s*(echo|printf)\b[^)]*\|\s*(base64|xxd)` +
			`|\b(exec|eval|Function|compile)\s*\(\s*(__import__\(\s*['"]base64['"]\s*\)\.|base64\.|codecs\.|binascii\.|zlib\.|marshal\.|bytes\.)?(b64decode|decodebytes|decode|fromhex|unhexlify|decompress|loads|atob|Buffer\.from|String\.fromCharCode|bytes\(|bytearray\(|''\.join|"".join|chr\()` +
			`|\bxxd\s+-r\b[^\n]*\|\s*(sudo\s+)?(ba|z)?sh\b` +
			`|\b(printf|echo\s+-e|echo\s+-ne)\s+["']?(\\x[0-9a-fA-F]{2}){4,}[^|\n]*\|\s*(sudo\s+)?(ba|z)?sh\b` +
			`|\b(powershell|pwsh)(\.exe)?\b[^\n]*\s-(e|ec|enc|encodedcommand)\s+[A-Za-z0-9+/=]{16,}` +
			`|\b(iex|invoke-expression)\b[^\n]*frombase64string` +
			`|new\s+Function\s*\(\s*atob\s*\(`},
	{Rule: ruleReverseShell,
		words: []string{"/dev/tcp/", "/dev/udp/", "nc ", "ncat", "netcat", "socat", "mkfifo", "tcpclient", "-e /bin"},
		re: `(?i)/dev/(tcp|udp)/[^\s/]+/\d+` +
			`|\bn(c|cat|etcat)(\.exe)?\b[^\n|]*\s-(e|c)\s*["']?\S*(sh|cmd|cmd\.exe|powershell)\b` +
			`|\bncat\b[^\n]*--(exec|sh-exec|lua-exec)` +
			`|\bmkfifo\b[^\n]*\bn(c|cat|etcat)\b` +
			`|\bn(c|cat|etcat)\b\s+[\w.-]+\s+\d+\s*[^\n]*\|\s*(/bin/)?(ba|z)?sh\b` +
			`|\bsocat\b[^\n]*\bexec:` +
			`|net\.sockets\.tcpclient\s*\(`},
	{Rule: ruleArchivePass,
		words: []string{"-p", "password", "pwd", "setpassword"},
		re: `(?i)\bunzip\s+(-\w+\s+)*-P\s*\S+` +
			`|\b7z[az]?(\.exe)?\s+(x|e)\b[^\n]*\s-p\S+` +
			`|\bunrar\s+(x|e)\b[^\n]*\s-p\S+` +
			`|\bextractall\s*\([^)]*pwd\s*=` +
			`|\b(extract|unzip|unpack|decompress|open)\w*\b[^\n]{0,60}\b(zip|archive|7z|rar)\b[^\n]{0,60}\b(password|passphrase)\b` +
			`|\b(zip|archive|7z|rar)\b[^\n]{0,60}\b(extract|unzip|unpack|decompress|open)\w*\b[^\n]{0,40}\b(password|passphrase)\b` +
			`|\b(extract|unzip|unpack)\w*\b[^\n]{0,40}\b(with|using)\s+(the\s+)?(password|passphrase)\b` +
			`|\b(password|passphrase)[- ]protected\b[^\n]{0,60}\b(zip|archive|7z|rar)\b[^\n]{0,80}\b(run|execute|launch|open|install)\b`},
	{Rule: rulePersist,
		words: []string{"bashrc", "zshrc", "profile", "crontab", "zshenv", "bash_login", "fish", "launchagents", "autostart", "currentversion\\run", "systemctl --user enable", "/etc/cron"},
		re: `(?i)(>>|\btee\s+(-a|--append)\s+)\s*["']?(~|\$home|\$\{home\}|/root|/home/[\w.-]+|/users/[\w.-]+)?/?\.(bashrc|bash_profile|zshrc|zprofile|profile|bash_login|zshenv|zlogin)\b` +
			`|(>>|\btee\s+(-a|--append)\s+)\s*["']?(~|\$home)?/?\.config/fish/config\.fish` +
			`|(>>|\btee\s+(-a|--append)\s+)\s*/etc/(profile|bash\.bashrc|zshrc|environment|rc\.local)\b` +
			`|\bcrontab\s+-(\s|$)|\|\s*crontab\b|\bcrontab\s+[\w./~$-]+\.(txt|cron)\b|>>?\s*/etc/cron` +
			`|(\bcp|\bmv|\btee|>|\bln\s+-s|launchctl\s+(load|bootstrap))[^\n]*library/launchagents/` +
			`|(\bcp|\bmv|\btee|>)[^\n]*\.config/autostart/` +
			`|\bsystemctl\s+--user\s+enable\b` +
			`|(\breg(\.exe)?\s+add|new-itemproperty|set-itemproperty|setvalueex)[^\n]*currentversion\\run\b` +
			`|\badd-content\b[^\n]*\$profile` +
			`|open\s*\([^)]*\.(bashrc|zshrc|profile|bash_profile)['"]?\s*,\s*['"]a` +
			`|appendfile(sync)?\s*\([^)]*\.(bashrc|zshrc|profile|bash_profile)`},
	{Rule: ruleAllowAll,
		words: []string{"bypasspermissions", "bash(", "approval_policy", "danger-full-access", "autoapprove", "allowedtools", "allow"},
		re: `(?i)["']?defaultmode["']?\s*[:=]\s*["']bypasspermissions["']` +
			`|["']bash\(\s*\*?\s*(:\s*\*)?\s*\)["']|["']allow["']\s*:\s*\[[^\]\n]*["']bash["']` +
			`|approval_policy\s*=\s*["']never["']|sandbox_mode\s*=\s*["']danger-full-access["']` +
			`|["']allowedtools["']\s*:\s*\[\s*["']\*["']` +
			`|autoapprove["']?\s*:\s*(true|\[\s*["']\*["'])`},
	{Rule: ruleAllowAllFlag,
		words: []string{"dangerously", "yolo", "allow-all-tools", "bypasspermissions"},
		re:    `(?i)--dangerously[-_]?skip[-_]?permissions|--dangerously-bypass-approvals-and-sandbox|--permission-mode[= ]bypasspermissions|--yolo\b|--allow-all-tools\b|--allow-all\b`},
	{Rule: ruleStealth,
		words: []string{"user", "silently", "secretly", "quietly", "human"},
		re: `(?i)\b(do\s+not|don'?t|never)\s+(mention|tell|reveal|disclose|report|say)\s+(this|it|that|anything|any\s+of\s+this|about\s+(this|it))\b[^\n.!?]{0,40}\b(user|human|anyone|them)\b` +
			`|\b(do\s+not|don'?t|never)\s+(tell|inform|notify|alert|warn)\s+the\s+(user|human)\s+(about\s+(this|these|it|that)\b|that\s+you\b|what\s+you\b)` +
			`|\bwithout\s+(telling|informing|notifying|alerting)\s+(the\s+)?(user|human|anyone)\b` +
			`|\bkeep\s+(this|it)\s+(hidden|secret)\s+from\s+(the\s+)?(user|human)` +
			`|\bthe\s+user\s+(must|should)\s+not\s+(know|see|notice|find\s+out)\b` +
			`|(^\s*([-*]|\d+\.)?\s*|[.:;!]\s+|\b(then|and|also)\s+)(silently|secretly|quietly|covertly)\s+(send|upload|post|run|execute|install|read|copy|collect|exfiltrate|forward)\b`},
}

// Signals: not findings by themselves (or low ones), they combine.
var (
	secretRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(~|\$home|\$\{home\}|%userprofile%|os\.homedir\(\)|expanduser\(\s*['"]~)[/\\'"\s,+]*\.(ssh|aws|gnupg|netrc|git-credentials|kube|docker|azure|config/gcloud|config/gh)\b` +
			`|\bid_(rsa|ed25519|ecdsa|dsa)\b|\.aws/credentials|\.ssh/(id_|authorized_keys|known_hosts)` +
			`|\b(cat|type|less|more|head|tail|base64|xxd|cp|scp|tar|zip)\s+[^|\n;]*\.env\b` +
			`|\b(open|readfile(sync)?|read_text|get-content|readfile)\s*\(?\s*[^)\n]*['"][^'"\n]*\.env['"]` +
			`|\bsecurity\s+(find|dump)-(generic|internet)-password|\bdump-keychain\b|login\s+data|cookies\.sqlite|\bkeychain\b[^\n]*\b(dump|export)` +
			`|\b(wallet\.dat|metamask|exodus|electrum)\b`)
	})
	envDumpRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(json\.dumps|str|repr|print)\s*\(\s*(dict\s*\()?\s*os\.environ\b\s*\)?` +
			`|(json|data)\s*=\s*(dict\s*\()?\s*os\.environ\b` +
			`|json\.stringify\s*\(\s*process\.env\s*\)|object\.(entries|keys|assign)\s*\(\s*(\{\}\s*,\s*)?process\.env\s*\)` +
			`|\bprintenv\s*(\||>)|(^\s*|[;&(]\s*)env\s*(\||>)|\$\(\s*(env|printenv)\s*\)` +
			`|\b(get-childitem|gci|dir|ls)\s+env:`)
	})
	netSendRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bcurl\b[^\n]*\s(-d|--data(-binary|-raw|-urlencode)?|-F|--form|-T|--upload-file|-X\s*(POST|PUT)|--request\s+(POST|PUT))\b` +
			`|\bcurl\b[^\n]*\s-d@|\bwget\b[^\n]*--(post|body)-(data|file)` +
			`|\b(requests|httpx|session|aiohttp|client)\.(post|put)\s*\(|urlopen\s*\([^)]*data\s*=|urllib\.request\.request\s*\([^)]*data\s*=` +
			`|\bfetch\s*\([^)]*method\s*:\s*['"](post|put)|\baxios\.(post|put)\s*\(|\bhttps?\.request\s*\(` +
			`|invoke-(webrequest|restmethod)\b[^\n]*-method\s+(post|put)|\b(iwr|irm)\b[^\n]*-method\s+(post|put)` +
			`|\bnc\s+-?\w*\s*[\w.-]+\.\w+\s+\d+|\bsmtplib\b|\bscp\s+[^\n]*\S+@\S+:` +
			`|/dev/tcp/` +
			`|\b(send|upload|post|transmit|forward|exfiltrate|submit)\b[^\n]{0,80}\b(to|at)\b[^\n]{0,20}https?://` +
			`|\b(send|upload|post|forward)\b[^\n]{0,60}\bwebhook\b`)
	})
	exfilHostRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(webhook\.site|requestbin\.(net|com)|pipedream\.net|[\w-]+\.m\.pipedream\.net|ngrok(-free)?\.(io|app|dev)|trycloudflare\.com|interact\.sh|oast\.(fun|pro|live|site|online|me)|burpcollaborator\.net|canarytokens\.com|hookbin\.com|beeceptor\.com|requestcatcher\.com|serveo\.net|localtunnel\.me|loca\.lt|transfer\.sh|paste\.ee|discord(app)?\.com/api/webhooks|api\.telegram\.org/bot)\b`)
	})
	settingsPathRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\.claude/settings(\.local)?\.json|\.codex/config\.toml|\.cursor/(cli-config|cli|settings|permissions)\.json|\.vscode/settings\.json|\.gemini/settings\.json|\.copilot/config\.json|\.config/github-copilot/|\.windsurf/|\.continue/config`)
	})
	// A download written to a file; downloadRuns says whether the rest
	// of the line runs that file.
	downloadRunRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(curl|wget|iwr|invoke-webrequest)\b[^\n]*?(?:\s-\w*[oO]\s*|--output[= ]|\s-outfile\s+|>\s*)["']?([^\s"';&|]+)["']?`)
	})
	// A socket whose descriptors become a shell's input and output.
	socketRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)socket\.socket\s*\(|socket\.create_connection|new\s+net\.socket|net\.connect\s*\(|tcpsocket\.(new|open)|fsockopen\s*\(`)
	})
	dupRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bdup2\s*\(|\.pipe\s*\(\s*\w+\.stdin|stdin\s*=\s*\w*sock|\bsh\.stdout\.pipe|exec\s+[0-9]<>`)
	})
	shellRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)pty\.spawn|['"]/bin/(ba|z)?sh['"]|['"](cmd\.exe|powershell)['"]|spawn\s*\(\s*['"](/bin/)?(ba)?sh`)
	})
	releaseDownloadRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)/releases/(download|latest)|\b(download|fetch|get)\b[^\n]{0,80}\.(zip|7z|rar|exe|dmg|pkg|msi)\b|\b(curl|wget|iwr|invoke-webrequest)\b[^\n]*\.(zip|7z|rar)\b`)
	})
	runWordsRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(run|execute|launch|start|open|install)\b|\./|chmod\s+\+x|start-process|\.exe\b`)
	})
)

var compiledLineRules = sync.OnceValue(func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(lineRules))
	for i, r := range lineRules {
		if r.re != "" {
			out[i] = regexp.MustCompile(r.re)
		}
	}
	return out
})
