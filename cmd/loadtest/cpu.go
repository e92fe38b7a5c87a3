package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A process to account CPU time to, given as -cpu name=PID. Its live
// children count too (a Postgres server's backends are children of the
// postmaster), so the figure is the CPU the whole server spent.
type watched struct {
	name string
	pid  int
}

// parseWatched reads "server=123,postgres=456".
func parseWatched(spec string) ([]watched, error) {
	var out []watched
	for _, part := range strings.Split(spec, ",") {
		if part == "" {
			continue
		}
		name, pid, ok := strings.Cut(part, "=")
		n, err := strconv.Atoi(pid)
		if !ok || name == "" || err != nil || n <= 0 {
			return nil, fmt.Errorf("-cpu %q: want name=PID[,name=PID...]", spec)
		}
		out = append(out, watched{name: name, pid: n})
	}
	return out, nil
}

// clockTick is the unit of /proc's CPU times: USER_HZ, 100 on Linux.
const clockTick = 10 * time.Millisecond

// cpuTimes is the CPU each watched process (with its children) and this
// load generator have used so far; nil where /proc cannot say (not Linux).
func cpuTimes(ws []watched) map[string]time.Duration {
	children := childrenOf()
	out := map[string]time.Duration{}
	for _, w := range ws {
		total, ok := procCPU(w.pid, true)
		if !ok {
			return nil
		}
		for _, c := range children[w.pid] {
			t, _ := procCPU(c, false)
			total += t
		}
		out[w.name] = total
	}
	if self, ok := procCPU(os.Getpid(), false); ok {
		out["load generator"] = self
	}
	return out
}

// procCPU is a process's user+system time from /proc/PID/stat, with its
// waited-for children's when withExited (backends that already ended).
func procCPU(pid int, withExited bool) (time.Duration, bool) {
	fields, ok := statFields(pid)
	if !ok || len(fields) < 15 {
		return 0, false
	}
	// Fields after the command: state is [0], utime [11], stime [12],
	// cutime [13], cstime [14].
	sum := 0
	last := 12
	if withExited {
		last = 14
	}
	for i := 11; i <= last; i++ {
		v, err := strconv.Atoi(fields[i])
		if err != nil {
			return 0, false
		}
		sum += v
	}
	return time.Duration(sum) * clockTick, true
}

// statFields are the fields of /proc/PID/stat after the command name
// (which may hold spaces, so it is skipped up to its closing bracket).
func statFields(pid int) ([]string, bool) {
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil, false
	}
	i := strings.LastIndexByte(string(raw), ')')
	if i < 0 {
		return nil, false
	}
	return strings.Fields(string(raw[i+1:])), true
}

// childrenOf maps each parent pid to its live children's pids.
func childrenOf() map[int][]int {
	out := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if fields, ok := statFields(pid); ok && len(fields) > 1 {
			if ppid, err := strconv.Atoi(fields[1]); err == nil {
				out[ppid] = append(out[ppid], pid)
			}
		}
	}
	return out
}

// cpuPerRequest is the CPU each process spent per successful request of a
// phase, from the times before and after it.
func cpuPerRequest(before, after map[string]time.Duration, requests int) map[string]time.Duration {
	if before == nil || after == nil || requests == 0 {
		return nil
	}
	out := map[string]time.Duration{}
	for name, a := range after {
		if b, ok := before[name]; ok {
			out[name] = (a - b) / time.Duration(requests)
		}
	}
	return out
}
