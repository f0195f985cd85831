package queue

import (
	"fmt"
	"testing"
	"time"
)

func TestPushPop(t *testing.T) {
	q := New()
	q.Push("a")
	if got := q.Pop(); got != "a" {
		t.Fatalf("Pop() = %q, want %q", got, "a")
	}
}

func TestLen(t *testing.T) {
	q := New()
	for i := 0; i < 5; i++ {
		q.Push(fmt.Sprint(i))
	}
	if q.Len() != 5 {
		t.Errorf("Len() = %d, want 5", q.Len())
	}
}

func TestDrainReturnsEverything(t *testing.T) {
	q := New()
	q.Push("x")
	q.Push("y")
	q.Push("z")
	got := q.Drain()
	if len(got) != 3 {
		t.Errorf("Drain() returned %d items (%v), want 3", len(got), got)
	}
}

func TestPopWaitsForPush(t *testing.T) {
	q := New()
	go func() {
		time.Sleep(50 * time.Millisecond)
		q.Push("late")
	}()
	if got := q.Pop(); got != "late" {
		t.Errorf("Pop() = %q", got)
	}
}

func TestOrder1(t *testing.T) {
	q := New()
	q.Push("first1")
	q.Push("second1")
	if q.Pop() != "first1" {
		t.Fatal("order")
	}
}

func TestOrder2(t *testing.T) {
	q := New()
	q.Push("first2")
	q.Push("second2")
	if q.Pop() != "first2" {
		t.Fatal("order")
	}
}

func TestOrder3(t *testing.T) {
	q := New()
	q.Push("first3")
	q.Push("second3")
	if q.Pop() != "first3" {
		t.Fatal("order")
	}
}

func TestOrder4(t *testing.T) {
	q := New()
	q.Push("first4")
	q.Push("second4")
	if q.Pop() != "first4" {
		t.Fatal("order")
	}
}

func TestOrder5(t *testing.T) {
	q := New()
	q.Push("first5")
	q.Push("second5")
	if q.Pop() != "first5" {
		t.Fatal("order")
	}
}

func TestOrder6(t *testing.T) {
	q := New()
	q.Push("first6")
	q.Push("second6")
	if q.Pop() != "first6" {
		t.Fatal("order")
	}
}

func TestOrder7(t *testing.T) {
	q := New()
	q.Push("first7")
	q.Push("second7")
	if q.Pop() != "first7" {
		t.Fatal("order")
	}
}

func TestOrder8(t *testing.T) {
	q := New()
	q.Push("first8")
	q.Push("second8")
	if q.Pop() != "first8" {
		t.Fatal("order")
	}
}

func TestOrder9(t *testing.T) {
	q := New()
	q.Push("first9")
	q.Push("second9")
	if q.Pop() != "first9" {
		t.Fatal("order")
	}
}

func TestOrder10(t *testing.T) {
	q := New()
	q.Push("first10")
	q.Push("second10")
	if q.Pop() != "first10" {
		t.Fatal("order")
	}
}

func TestOrder11(t *testing.T) {
	q := New()
	q.Push("first11")
	q.Push("second11")
	if q.Pop() != "first11" {
		t.Fatal("order")
	}
}

func TestOrder12(t *testing.T) {
	q := New()
	q.Push("first12")
	q.Push("second12")
	if q.Pop() != "first12" {
		t.Fatal("order")
	}
}
