-- Fair delivery (docs/contract.md §14). A site's live patches are sent one at a time: the consumer sending one holds the site until then (a copy for a busy site is deferred, not sent beside it).
ALTER TABLE "sites" ADD COLUMN "delivery_busy_until" timestamp with time zone;--> statement-breakpoint
-- Until when a queue message stands for a pending delivery (set whenever one is sent, retried or deferred); the reconciler re-sends only one whose message is past it, so a delivery still in the queue is never doubled.
ALTER TABLE "deliveries" ADD COLUMN "requeue_after" timestamp with time zone;
