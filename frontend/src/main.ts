import { mount } from 'svelte';
import './app.css';
import App from './App.svelte';
import { openInBrowser } from './lib/backend';
import { guardLinks } from './lib/links';

const target = document.getElementById('app');
if (!target) throw new Error('index.html has no #app element');

// Before anything is shown: no link ever moves the window.
guardLinks(window, openInBrowser);

export default mount(App, { target });
