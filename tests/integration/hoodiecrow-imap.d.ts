/** What the IMAP tests use of hoodiecrow-imap (a scriptable IMAP server for client tests; no types of its own). */
declare module 'hoodiecrow-imap' {
  import type { Server } from 'node:net';

  export interface StoredMessage {
    uid: number;
    flags: string[];
    raw: string;
  }
  export interface Mailbox {
    messages: StoredMessage[];
  }
  export interface Connection {
    socket: { destroy(): void } | null;
    selectedMailbox?: Mailbox;
  }
  export type CommandHandler = (
    connection: Connection,
    parsed: { attributes: { value: string }[] },
    data: unknown,
    callback: () => void,
  ) => void;
  export interface HoodiecrowServer {
    server: Server;
    listen(port: number, host: string, callback: () => void): void;
    close(callback?: () => void): void;
    getMailbox(path: string): Mailbox | undefined;
    appendMessage(mailbox: string, flags: string[], internaldate: Date, raw: string): void;
    getCommandHandler(command: string): CommandHandler;
    setCommandHandler(command: string, handler: CommandHandler): void;
  }
  export interface HoodiecrowOptions {
    secureConnection?: boolean;
    credentials?: { key: string | Buffer; cert: string | Buffer };
    plugins?: string[];
    users?: Record<string, { password: string; xoauth2?: { accessToken: string } }>;
    storage?: Record<string, unknown>;
  }
  export default function hoodiecrow(options?: HoodiecrowOptions): HoodiecrowServer;
}
