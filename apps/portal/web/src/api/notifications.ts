/**
 * Notification mail: the signed-in person's settings (`/portal/api/me/notifications`) and the
 * unsubscribe link of a mail (`/portal/api/unsubscribe/preview`, `/portal/api/unsubscribe`: no sign-in).
 */
import { queryOptions } from '@tanstack/react-query';
import type { Maybe, RequestBody, SentAnswer } from './answers';
import { api } from './client';

/** `timezone`: the person's own IANA time zone (the weekly summary's), or null: each account's zone. */
export type NotificationSettings = SentAnswer<'/portal/api/me/notifications/'>;

/** `receives`: whether this person receives the kind in any of their accounts (by their role there). */
export type NotificationSetting = NotificationSettings['kinds'][number];

/** `enabled`: false once unsubscribed (absent in the preview). */
export type UnsubscribeView = Maybe<SentAnswer<'/portal/api/unsubscribe/preview/', 'post'>, 'enabled'>;

export const notificationsKey = ['notifications'] as const;

export const notificationSettingsQuery = () =>
  queryOptions({ queryKey: notificationsKey, queryFn: () => api<NotificationSettings>('/me/notifications'), staleTime: 0 });

export const saveNotificationSettings = (change: RequestBody<'/portal/api/me/notifications/', 'put'>) =>
  api<NotificationSettings>('/me/notifications', { method: 'PUT', body: change });

export const previewUnsubscribe = (token: string) => api<UnsubscribeView>('/unsubscribe/preview', { method: 'POST', body: { token }, auth: 'public' });

export const unsubscribe = (token: string) => api<UnsubscribeView>('/unsubscribe', { method: 'POST', body: { token }, auth: 'public' });
