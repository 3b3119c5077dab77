package main

// sourcePolicyHelp is the source policy as the help of every command that
// reads a source gives it (plugin, sync, pull, adopt, install); package
// store/plugins documents the same (plugins.SourcePolicy).
const sourcePolicyHelp = "Source policy: when /etc/skillstore/policy ($SKILLSTORE_SYSTEM_POLICY) or\n" +
	"$XDG_CONFIG_HOME/skillstore/policy ($SKILLSTORE_POLICY) exists, a source must match a\n" +
	"line of each, or it is refused before it is read (plugin add, sync, pull, adopt,\n" +
	"install, plugin set and trust), naming the file and what it allows. Lines:\n" +
	"  host git.example.com              any repository there (*.example.com, host:port)\n" +
	"  owner github.com/acme             any repository of that owner or group\n" +
	"  repo github.com/obra/superpowers  that repository\n" +
	"  marketplace github.com/acme/mkt   that marketplace and the plugins its entries name\n" +
	"  local /srv/skills                 folders and repositories on this machine below it\n" +
	"A source is matched in the form that is fetched: its path decoded and its '.' and\n" +
	"'..' resolved (acme/../x is not acme's), an owner by whole path parts, a local path\n" +
	"with its symbolic links resolved; every HTTP redirect must be allowed too.\n" +
	"A file with no line allows nothing; one with a bad line allows nothing either."
