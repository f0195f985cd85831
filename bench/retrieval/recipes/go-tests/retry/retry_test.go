package retry

import (
	"errors"
	"testing"
	"time"
)

func TestSucceedsFirstTime(t *testing.T) {
	if err := Do(3, time.Millisecond, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
}

func TestGivesUp(t *testing.T) {
	n := 0
	err := Do(3, time.Millisecond, func() error { n++; return errors.New("boom") })
	if !errors.Is(err, ErrGaveUp) || n != 3 {
		t.Fatalf("err=%v n=%d", err, n)
	}
}

func TestKeepsLastError(t *testing.T) {
	err := Do(2, time.Millisecond, func() error { return errors.New("disk full") })
	if err == nil || err.Error() != "disk full" {
		t.Errorf("Do() error = %v, want the last error %q", err, "disk full")
	}
}
