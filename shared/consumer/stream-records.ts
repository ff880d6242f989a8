/**
 * A record of the table's DynamoDB Stream as a TableChange (consumer/table-changes.ts), whoever read
 * it: Lambda's event (the CountTickets function), the Streams API through the SDK (the local
 * runtime's poller, the CLI's replay-stream).
 */
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { TableChange } from './changes';

type Image = Record<string, unknown>;

/** The fields of a stream record that a change is made of, as Lambda's events and the Streams API both carry them. */
export interface StreamRecordLike {
  eventID?: string;
  eventName?: string;
  dynamodb?: {
    Keys?: Image;
    NewImage?: Image;
    OldImage?: Image;
    SequenceNumber?: string;
    /** Seconds since the epoch in Lambda's events; a Date from the SDK's Streams client. */
    ApproximateCreationDateTime?: number | Date;
  };
}

/**
 * The SDK's Streams client turns an empty map (`{"M": {}}`, e.g. a ticket's `custom`) into `{}`,
 * which unmarshall refuses; Lambda's events carry the JSON as sent. Put the `M` back.
 */
function restoreEmptyMaps(value: Image): Image {
  return Object.fromEntries(
    Object.entries(value).map(([name, attribute]) => {
      const a = attribute as Image;
      if (!Object.keys(a).length) return [name, { M: {} }];
      if (a.M) return [name, { M: restoreEmptyMaps(a.M as Image) }];
      if (a.L) return [name, { L: (a.L as Image[]).map((item) => restoreEmptyMaps({ v: item }).v) }];
      return [name, a];
    }),
  );
}

const image = (i: Image | undefined) =>
  i ? unmarshall(restoreEmptyMaps(i) as Parameters<typeof unmarshall>[0]) : undefined;

export function tableChangeOf(record: StreamRecordLike): TableChange {
  const { Keys, NewImage, OldImage, SequenceNumber, ApproximateCreationDateTime: created } = record.dynamodb!;
  return {
    eventName: record.eventName as TableChange['eventName'],
    keys: image(Keys) as TableChange['keys'],
    newImage: image(NewImage),
    oldImage: image(OldImage),
    stream: {
      id: record.eventID!,
      sequence: SequenceNumber!,
      at: typeof created === 'number' ? created * 1000 : (created?.getTime() ?? Date.now()),
    },
  };
}
