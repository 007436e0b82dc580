package schedule

import (
	"strings"
	"testing"
)

func target() Target {
	return Target{Binary: "/usr/local/bin/mf-lsp", DataDir: "/home/u/.local/share/magicfrog", ProjectDir: "/home/u/src/my shop", PathDirs: []string{"/home/u/.local/bin"}}
}

func TestInstallRemoveKeepsOtherLines(t *testing.T) {
	mine := "MAILTO=u\n# backups\n0 5 * * * /usr/bin/backup" // no final newline
	tg := target()
	out, changed, err := Install(mine, tg)
	if err != nil || !changed {
		t.Fatalf("Install: %v %v", changed, err)
	}
	if !strings.HasPrefix(out, mine+"\n# mf-lsp schedule "+tg.ID()+" begin") {
		t.Errorf("not appended after the user's lines:\n%s", out)
	}
	again, changed, err := Install(out, tg)
	if err != nil || changed || again != out {
		t.Errorf("second Install changed it: %v %v", changed, err)
	}
	// A changed target replaces the block in place, before lines added later.
	later := out + "30 1 * * * /usr/bin/other\n"
	tg2 := tg
	tg2.PathDirs = nil
	repl, changed, _ := Install(later, tg2)
	if !changed || !strings.HasSuffix(repl, "30 1 * * * /usr/bin/other\n") || strings.Contains(repl, "/home/u/.local/bin") || strings.Count(repl, " begin") != 1 {
		t.Errorf("replace in place:\n%s", repl)
	}
	back, changed, err := Remove(later, tg.ID())
	if err != nil || !changed || back != mine+"\n30 1 * * * /usr/bin/other\n" {
		t.Errorf("Remove: %v %v\n%q", changed, err, back)
	}
	if _, changed, _ := Remove(mine, tg.ID()); changed {
		t.Error("Remove without a block changed something")
	}
	// A begin marker without its end is refused, never guessed at.
	broken := strings.Replace(out, "# mf-lsp schedule "+tg.ID()+" end\n", "", 1)
	if _, _, err := Install(broken, tg); err == nil || !strings.Contains(err.Error(), "crontab -e") {
		t.Errorf("broken block: %v", err)
	}
	if _, _, err := Remove(broken, tg.ID()); err == nil {
		t.Error("Remove of a broken block did not fail")
	}
}

func TestCommandsAndQuoting(t *testing.T) {
	tg := target()
	block := CronBlock(tg)
	cmds := BlockCommands("0 5 * * * /usr/bin/backup\n" + block)
	if len(cmds) != 3 {
		t.Fatalf("commands: %q", cmds)
	}
	want := "PATH=/home/u/.local/bin:/usr/bin:/bin /usr/local/bin/mf-lsp rollup due --day-over --data-dir /home/u/.local/share/magicfrog --project '/home/u/src/my shop' --log /home/u/.local/share/magicfrog/schedule/" + tg.ID() + "-nightly.log"
	if cmds[0] != want {
		t.Errorf("nightly:\n%s\nwant\n%s", cmds[0], want)
	}
	found, err := Find(block, tg.ID())
	if err != nil || len(found) != 3 || found[1].Job != "weekly" || !strings.HasPrefix(found[1].Line, "45 23 * * 0 ") {
		t.Errorf("Find: %+v %v", found, err)
	}
	units := Units(tg)
	svc := units[UnitBase(tg, Jobs[2])+".service"]
	if !strings.Contains(svc, `--project "/home/u/src/my shop"`) || !strings.Contains(svc, "Environment=PATH=/home/u/.local/bin:/usr/bin:/bin\n") {
		t.Errorf("monthly service:\n%s", svc)
	}
	for _, bad := range []Target{{Binary: "mf-lsp", DataDir: "/d", ProjectDir: "/p"}, {Binary: "/b", DataDir: "/d%x", ProjectDir: "/p"}} {
		if bad.Check() == nil {
			t.Errorf("Check(%+v) passed", bad)
		}
	}
}
