import { describeServiceBasics } from '@cw/testing';
import { createApp } from '../src/app';

describeServiceBasics('postback-worker', createApp);
