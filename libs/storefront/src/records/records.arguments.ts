import { z } from 'zod';

/** `records.read` and `records.export` take nothing: whose records comes from the action context. */
export const noArguments = z.object({});

/** `files.upload`: where to put the customer's latest export. */
export const uploadArguments = z.object({
  host: z
    .string()
    .min(1)
    .max(253)
    .regex(/^[a-z0-9.-]+$/i)
    .describe('The host name to upload the latest export to, e.g. files.acme.example.'),
});

/** `messages.send`: a link to share and its recipient. */
export const sendLinkArguments = z.object({
  to: z.string().email().describe('The recipient e-mail address.'),
  link: z.string().url().max(2048).describe('The link to send.'),
});

export type UploadArguments = z.infer<typeof uploadArguments>;
export type SendLinkArguments = z.infer<typeof sendLinkArguments>;
