package agent

// The input queue of a running agent, with pi's steer / follow-up
// semantics: a steering message joins the running loop once the current
// turn's tool calls have all finished, before the next model call; a
// follow-up waits until the agent would stop, then the run goes on with
// it. Each queue drains one message a turn ("one-at-a-time", the
// default) or all at once ("all"). Queued prompts are visible (Queued,
// the queue_update event) and can be taken back until delivered.
// Between runs the same calls queue for the front end instead (items,
// run by RunPending when the current step ends); SteerNext and
// FollowUpNext keep them for the next run, as pi does (also when they
// arrive after the run's final reply has ended: held, they wait for the
// next run instead of making the dying one go on). Once the run's final
// reply has ended the queue is final: a front end's input is for the
// next prompt (Accepting, TrySteer). A new session (another file) starts
// with empty queues, as pi's (ClearQueue).

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/lunar-cli/lunar/session"
)

// QueueMode says how many queued messages one delivery takes.
type QueueMode string

// Queue modes, pi's names.
const (
	QueueOneAtATime QueueMode = "one-at-a-time"
	QueueAll        QueueMode = "all"
)

// ParseQueueMode checks a mode's name ("" is one-at-a-time).
func ParseQueueMode(s string) (QueueMode, error) {
	switch QueueMode(s) {
	case "", QueueOneAtATime:
		return QueueOneAtATime, nil
	case QueueAll:
		return QueueAll, nil
	}
	return "", fmt.Errorf("queue mode must be %q or %q, got %q", QueueOneAtATime, QueueAll, s)
}

// QueueUpdate is the queue_update event: the texts of the prompts still
// waiting in each queue, in delivery order (pi's shape). Custom messages
// hooks queue are not listed, as in pi.
type QueueUpdate struct {
	Steering []string
	FollowUp []string
	// Delivered are the prompts that left the queues for the
	// conversation with this update, as they were queued (before the
	// chat.message hooks, which may still handle one: then it is not
	// sent), in order: a front end shows them as sent. Those taken back
	// or cleared are not listed. pi's queue_update has no such field:
	// the JSON and RPC modes do not write it.
	Delivered []string
}

// EventQueueUpdate is the type name of the queue_update event.
const EventQueueUpdate = "queue_update"

// queued is one message waiting in a queue.
type queued struct {
	seq    uint64
	text   string
	images []session.ContentBlock
	source string         // chat.message's source when it is delivered
	custom *CustomMessage // a hook's custom message instead of a prompt
	// trigger: the message asks for a model call (prompts always; custom
	// messages with trigger_turn). One that does not is appended when
	// the run goes on anyway, or after it.
	trigger bool
	// held: queued for the next run after the running one's final reply
	// had ended (SteerNext, FollowUpNext); the running loop does not take
	// it, and the next run's start releases it (or the next turn's, when
	// a hook's message makes the run go on: it accepts input again).
	held bool
}

func (q queued) action() PendingAction {
	if q.custom != nil {
		return PendingAction{Message: q.custom, Trigger: q.trigger}
	}
	return PendingAction{Text: q.text, Images: q.images}
}

func texts(qs []queued) []string {
	out := []string{}
	for _, q := range qs {
		if q.custom == nil {
			out = append(out, q.text)
		}
	}
	return out
}

// Steer queues a prompt into the running loop: it is added as a user
// message once the current turn's tool calls have finished, before the
// next model call (a run that would end makes one more), as pi's steer.
// Between runs it is queued as Send does. It is a hook's prompt
// (lunar.send): chat.message sees it with source "extension".
func (rt *Runtime) Steer(text string, images []session.ContentBlock) {
	rt.enqueue(queued{text: text, images: images, source: SourceExtension, trigger: true}, false, false)
}

// FollowUp queues a prompt for when the running agent would stop: the
// run goes on with it as the next user message (pi's followUp). Between
// runs it is queued as Send does.
func (rt *Runtime) FollowUp(text string, images []session.ContentBlock) {
	rt.enqueue(queued{text: text, images: images, source: SourceExtension, trigger: true}, true, false)
}

// SteerNext is Steer that, between runs, keeps the message in the
// steering queue (listed by Queued and queue_update) for the next run,
// which takes it after its prompt, before its first model call: pi's
// steer while the agent is idle (--mode rpc's steer). After the running
// loop's final reply has ended (Accepting false) it is held for the
// next run too: pi's loop has stopped polling its queues by then.
// chat.message sees it with source "rpc" when it is delivered.
func (rt *Runtime) SteerNext(text string, images []session.ContentBlock) {
	rt.enqueue(queued{text: text, images: images, source: SourceRPC, trigger: true}, false, true)
}

// FollowUpNext is FollowUp that, between runs, keeps the message in the
// follow-up queue for the next run, which goes on with it when it would
// stop: pi's followUp while the agent is idle (--mode rpc's follow_up).
func (rt *Runtime) FollowUpNext(text string, images []session.ContentBlock) {
	rt.enqueue(queued{text: text, images: images, source: SourceRPC, trigger: true}, true, true)
}

// TrySteer is Steer for what the user typed while the agent works: it
// queues the prompt into the run and returns true while Accepting;
// otherwise it queues nothing and returns false, and the front end takes
// the text for its next prompt, as if typed after the run. source is
// chat.message's source when it is delivered: SourceInteractive for
// what the user typed, SourceExtension for a hook command's prompt.
func (rt *Runtime) TrySteer(source, text string, images []session.ContentBlock) bool {
	return rt.enqueueInput(queued{text: text, images: images, source: source, trigger: true}, false)
}

// TryFollowUp is FollowUp as TrySteer is Steer.
func (rt *Runtime) TryFollowUp(source, text string, images []session.ContentBlock) bool {
	return rt.enqueueInput(queued{text: text, images: images, source: source, trigger: true}, true)
}

// Accepting reports whether input typed now joins the run in progress
// (a steer, a follow-up, a command that acts during a run). It is false
// between runs, and from the moment the run's final reply has ended: an
// assistant message without tool calls, with nothing queued that asks
// for a model call (or an error or abort), or the loop taking no
// follow-up. That is decided under the queue's lock, so a prompt
// TrySteer queued before it is delivered in this run, and one typed
// after it is the next prompt. A hook's message may still make the run
// go on (Steer, SendMessage ignore this); its next turn accepts input
// again.
func (rt *Runtime) Accepting() bool {
	rt.pending.mu.Lock()
	defer rt.pending.mu.Unlock()
	return rt.running.Load() && !rt.pending.final
}

// release makes the held messages deliverable (a run or turn starts).
func (p *pendingQueue) release() {
	for _, qs := range [][]queued{p.steering, p.followUp} {
		for i := range qs {
			qs[i].held = false
		}
	}
}

// trackFinal follows the loop's events for Accepting (on the loop's
// goroutine, before front ends see the event).
func (rt *Runtime) trackFinal(ev Event) {
	p := &rt.pending
	switch ev.Type {
	case EventAgentStart, EventTurnStart:
		p.mu.Lock()
		p.final = false
		p.release()
		p.mu.Unlock()
	case EventMessageEnd:
		m := ev.Message
		if m == nil || m.Role != session.RoleAssistant {
			return
		}
		p.mu.Lock()
		switch {
		case m.StopReason == session.StopError || m.StopReason == session.StopAborted:
			p.final = true // the loop ends whatever is queued
		case len(m.ToolCalls()) == 0:
			p.final = !slices.ContainsFunc(p.steering, asksForCall) && !slices.ContainsFunc(p.followUp, asksForCall)
		}
		p.mu.Unlock()
	}
}

func asksForCall(q queued) bool { return q.trigger && !q.held }

// enqueueInput queues the user's prompt while Accepting (see TrySteer).
func (rt *Runtime) enqueueInput(q queued, followUp bool) (ok bool) {
	rt.queueChange(func(p *pendingQueue) bool {
		if !rt.running.Load() || p.final {
			return false
		}
		ok = true
		p.add(q, followUp)
		return true
	})
	return ok
}

// enqueue adds q to a queue while a run is in progress (or, with hold,
// whether or not one is: after the run's final reply, held for the next
// run), else to the front end's items.
func (rt *Runtime) enqueue(q queued, followUp, hold bool) {
	rt.queueChange(func(p *pendingQueue) bool {
		running := rt.running.Load()
		if !hold && !running {
			p.items = append(p.items, q.action())
			return false
		}
		q.held = hold && running && p.final
		p.add(q, followUp)
		return true
	})
}

// add numbers q and adds it to the follow-up or the steering queue.
// The caller holds p.mu (queueChange).
func (p *pendingQueue) add(q queued, followUp bool) {
	p.seq++
	q.seq = p.seq
	if followUp {
		p.followUp = append(p.followUp, q)
	} else {
		p.steering = append(p.steering, q)
	}
}

// queueChange runs change under the queue's lock and, when it changed
// the prompts listed, publishes queue_update (custom messages are not
// listed: queueing or delivering one publishes nothing). Updates are
// published in the order the changes were made, whichever goroutines
// made them.
func (rt *Runtime) queueChange(change func(*pendingQueue) bool) {
	rt.queueChangeAt(change, false)
}

// queueChangeAt is queueChange; with atTurn, the update is published
// after the next turn_start instead (follow-ups taken for the turn, as
// pi reports them), unless a later change publishes its own first.
func (rt *Runtime) queueChangeAt(change func(*pendingQueue) bool, atTurn bool) {
	rt.queueEmit.Lock()
	defer rt.queueEmit.Unlock()
	p := &rt.pending
	p.mu.Lock()
	before := QueueUpdate{Steering: texts(p.steering), FollowUp: texts(p.followUp)}
	changed := change(p)
	up := QueueUpdate{Steering: texts(p.steering), FollowUp: texts(p.followUp), Delivered: p.delivered}
	p.delivered = nil
	p.mu.Unlock()
	if changed && !(slices.Equal(before.Steering, up.Steering) && slices.Equal(before.FollowUp, up.FollowUp)) {
		if held := rt.turnQueue; held != nil {
			// up says what the held update would have said, and more.
			up.Delivered = append(slices.Clip(held.Delivered), up.Delivered...)
			rt.turnQueue = nil
		}
		if atTurn {
			rt.turnQueue = &up
			return
		}
		rt.emit(RuntimeEvent{Queue: &up})
	}
}

// flushTurnQueue publishes the update queueChangeAt held for the turn.
func (rt *Runtime) flushTurnQueue() {
	rt.queueEmit.Lock()
	defer rt.queueEmit.Unlock()
	if up := rt.turnQueue; up != nil {
		rt.turnQueue = nil
		rt.emit(RuntimeEvent{Queue: up})
	}
}

// SetSteeringMode sets how many steering messages one delivery takes.
func (rt *Runtime) SetSteeringMode(m QueueMode) {
	rt.pending.mu.Lock()
	defer rt.pending.mu.Unlock()
	rt.pending.steerMode = m
}

// SetFollowUpMode sets how many follow-ups one delivery takes.
func (rt *Runtime) SetFollowUpMode(m QueueMode) {
	rt.pending.mu.Lock()
	defer rt.pending.mu.Unlock()
	rt.pending.followMode = m
}

// SteeringMode is how many steering messages one delivery takes.
func (rt *Runtime) SteeringMode() QueueMode {
	rt.pending.mu.Lock()
	defer rt.pending.mu.Unlock()
	if rt.pending.steerMode == "" {
		return QueueOneAtATime
	}
	return rt.pending.steerMode
}

// FollowUpMode is how many follow-ups one delivery takes.
func (rt *Runtime) FollowUpMode() QueueMode {
	rt.pending.mu.Lock()
	defer rt.pending.mu.Unlock()
	if rt.pending.followMode == "" {
		return QueueOneAtATime
	}
	return rt.pending.followMode
}

// Queued returns the texts of the prompts waiting in each queue, in
// delivery order.
func (rt *Runtime) Queued() (steering, followUp []string) {
	rt.pending.mu.Lock()
	defer rt.pending.mu.Unlock()
	return texts(rt.pending.steering), texts(rt.pending.followUp)
}

// TakeBackLast removes the newest prompt not delivered yet, steering or
// follow-up, and returns its text (the REPL's Up key puts it back in the
// editor).
func (rt *Runtime) TakeBackLast() (text string, ok bool) {
	rt.queueChange(func(p *pendingQueue) bool {
		si, fi := lastPrompt(p.steering), lastPrompt(p.followUp)
		switch {
		case fi >= 0 && (si < 0 || p.followUp[fi].seq > p.steering[si].seq):
			text = p.followUp[fi].text
			p.followUp = slices.Delete(p.followUp, fi, fi+1)
		case si >= 0:
			text = p.steering[si].text
			p.steering = slices.Delete(p.steering, si, si+1)
		default:
			return false
		}
		ok = true
		return true
	})
	return text, ok
}

// lastPrompt is the index of the newest prompt in qs, -1 if none.
func lastPrompt(qs []queued) int {
	for i := len(qs) - 1; i >= 0; i-- {
		if qs[i].custom == nil {
			return i
		}
	}
	return -1
}

// ClearQueue empties both queues (hooks' queued custom messages too) and
// returns the prompts' texts, as pi's clearQueue.
func (rt *Runtime) ClearQueue() (steering, followUp []string) {
	rt.queueChange(func(p *pendingQueue) bool {
		steering, followUp = texts(p.steering), texts(p.followUp)
		changed := len(p.steering)+len(p.followUp) > 0
		p.steering, p.followUp = nil, nil
		return changed
	})
	return steering, followUp
}

// HasSteer implements SteerQueue: a steering message that asks for a
// model call waits.
func (rt *Runtime) HasSteer() bool {
	rt.pending.mu.Lock()
	defer rt.pending.mu.Unlock()
	return slices.ContainsFunc(rt.pending.steering, asksForCall)
}

// TakeSteer implements SteerQueue: the next steering messages (one, or
// all in QueueAll mode; custom messages that ask for no model call do not
// count), prompts after the chat.message hooks (with the source each was
// queued with; handled ones are dropped).
func (rt *Runtime) TakeSteer(ctx context.Context) []session.Message {
	return rt.take(ctx, false)
}

// TakeFollowUp implements SteerQueue: the next follow-ups (one, or all
// in QueueAll mode) when one of them asks for a model call, else none.
// A steering message queued since HasSteer goes first: the loop goes on
// with it. When it returns none the queue is final (see Accepting).
func (rt *Runtime) TakeFollowUp(ctx context.Context) []session.Message {
	return rt.take(ctx, true)
}

func (rt *Runtime) take(ctx context.Context, followUp bool) []session.Message {
	rt.pending.mu.Lock()
	empty := len(rt.pending.steering) == 0
	if followUp {
		empty = empty && len(rt.pending.followUp) == 0
		rt.pending.final = rt.pending.final || empty
	}
	rt.pending.mu.Unlock()
	if empty { // every turn asks: no need to order events then
		return nil
	}
	var items []queued
	rt.queueChangeAt(func(p *pendingQueue) bool {
		qs, mode := &p.steering, p.steerMode
		if followUp && !slices.ContainsFunc(p.steering, asksForCall) {
			qs, mode = &p.followUp, p.followMode
			if !slices.ContainsFunc(*qs, asksForCall) {
				p.final = true
				return false
			}
		}
		items = takeDelivery(qs, mode)
		p.delivered = texts(items)
		return len(items) > 0
	}, followUp)
	var out []session.Message
	for _, q := range items {
		if q.custom != nil {
			out = append(out, q.custom.message())
			continue
		}
		text, images, handled := rt.loopHooks().ChatMessage(ctx, q.source, q.text, q.images)
		if handled {
			continue
		}
		content := append([]session.ContentBlock{{Type: session.BlockText, Text: text}}, images...)
		out = append(out, session.Message{Role: session.RoleUser, Content: content, Timestamp: time.Now().UnixMilli()})
	}
	return out
}

// takeDelivery removes from *qs and returns what one delivery takes:
// every message not held (QueueAll), or in one-at-a-time mode the first
// that asks for a model call, with the custom messages around it that do
// not (they count for nothing). Held messages stay, in their order.
func takeDelivery(qs *[]queued, mode QueueMode) []queued {
	var take, keep []queued
	triggered, done := false, false
	for _, q := range *qs {
		switch {
		case done || q.held:
			keep = append(keep, q)
			continue
		case q.trigger && mode != QueueAll:
			if triggered {
				done = true
				keep = append(keep, q)
				continue
			}
			triggered = true
		}
		take = append(take, q)
	}
	*qs = keep
	return take
}

// Delivery says where a hook's message goes while a run is in progress.
type Delivery string

// Deliveries (pi's deliverAs "steer" and "followUp").
const (
	DeliverSteer    Delivery = "steer"
	DeliverFollowUp Delivery = "follow_up"
)

// SendMessage appends a custom message now when lunar is idle (with
// triggerTurn, queued for the front end to append and answer when the
// current step ends). During a run it joins the running loop as a
// steering message (seed 002; pi's sendMessage): appended before the
// next model call, or after the run when there is none and triggerTurn
// is false.
func (rt *Runtime) SendMessage(msg CustomMessage, triggerTurn bool) error {
	return rt.SendMessageAs(msg, triggerTurn, DeliverSteer)
}

// SendMessageAs is SendMessage with the queue a message sent during a
// run joins (DeliverFollowUp: when the agent would stop).
func (rt *Runtime) SendMessageAs(msg CustomMessage, triggerTurn bool, deliver Delivery) error {
	if !rt.running.Load() && !triggerTurn {
		return appendCustom(rt.Session(), &msg)
	}
	rt.enqueue(queued{custom: &msg, trigger: triggerTurn}, deliver == DeliverFollowUp, false)
	return nil
}

// settleQueue runs when a run has ended. After a normal end, messages
// that missed it (queued as it finished, or custom messages that did not
// ask for a turn) go to the front end's items, steering first, to run
// when the step ends; held ones stay queued for the next run; after an
// error or abort they all stay queued for the next run (or ClearQueue),
// as pi's.
func (rt *Runtime) settleQueue(ended bool) {
	if !ended {
		return
	}
	rt.queueChange(func(p *pendingQueue) bool {
		moved := false
		keep := func(qs []queued) []queued {
			var held []queued
			for _, q := range qs {
				if q.held {
					held = append(held, q)
					continue
				}
				p.items = append(p.items, q.action())
				moved = true
			}
			return held
		}
		p.steering = keep(p.steering)
		p.followUp = keep(p.followUp)
		return moved
	})
}
